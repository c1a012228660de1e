import { describe, expect, it } from 'vitest';
import { api, countRows, del, expect422, expectProblem, expectStatus, get, patch, paths, post, violations } from '../support/api';
import { created, createTenant, keyWith, ok, refusedUnchanged } from '../support/builders';

// Tax groups and their taxes, and the rate a tax group gives a customer (GET
// /tax-groups/{id}/rate). Storage is shared by every test file, so every test works in a fresh
// tenant of its own.

describe('tax groups and taxes', () => {
  it('defaults reverseChargeType to REVERSE_CHARGE', async () => {
    const t = await createTenant();
    expect(await created(post(t, '/tax-groups', { type: 'reduced' }))).toMatchObject({ type: 'reduced', reverseChargeType: 'REVERSE_CHARGE', internalDescription: null });
  });

  it.each([
    { rate: '101', ok: false },
    { rate: '100.0001', ok: false },
    { rate: '-1', ok: false },
    { rate: '19.12345', ok: false },
    { rate: '', ok: false },
    { rate: '0', ok: true },
    { rate: '100', ok: true },
    { rate: '7.7', ok: true },
    { rate: '25.5', ok: true },
    // Spec §2.3 shows the rate as a number: taken as written, shown as a number.
    { rate: 7.5, ok: true },
    { rate: 19, ok: true },
    { rate: 19.12345, ok: false },
    { rate: 101, ok: false },
  ])('rate $rate: accepted $ok', async ({ rate, ok: accepted }) => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    const res = await post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate, code: 'X' });
    if (accepted) {
      expectStatus(res, 201);
      expect(res.body.rate).toBe(Number(rate));
    } else {
      expectProblem(res, 422);
      expect(new Set(paths(res))).toEqual(new Set(['rate']));
      expect(await countRows('taxes', t)).toBe(0);
    }
  });

  it.each([
    { body: { countryCode: 'XX' }, path: 'countryCode' },
    { body: { countryCode: 'de' }, path: 'countryCode' },
    { body: { validFrom: '2026-02-30' }, path: 'validFrom' },
    { body: { validFrom: '01.01.2026' }, path: 'validFrom' },
    { body: { code: '' }, path: 'code' },
    { body: { taxGroup: 'missing-group' }, path: 'taxGroup' },
  ])('422 for $body', async ({ body, path }) => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    expect422(await refusedUnchanged(t, null, () => post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'X', ...body })), [path]);
  });

  it('one tax per group, country and validFrom (422 validFrom); other groups, countries and dates are fine', async () => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    const other = await created(post(t, '/tax-groups', { type: 'standard' }));
    const base = { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'DE19' };
    await created(post(t, '/taxes', base));
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/taxes', { ...base, rate: '16' })))).toEqual(['validFrom: not_unique']);
    await created(post(t, '/taxes', { ...base, taxGroup: other.id }));
    await created(post(t, '/taxes', { ...base, countryCode: 'AT' }));
    const later = await created(post(t, '/taxes', { ...base, validFrom: '2026-07-01' }));
    expect(violations(await refusedUnchanged(t, `/taxes/${later.id}`, () => patch(t, `/taxes/${later.id}`, { validFrom: '2026-01-01' })))).toEqual([
      'validFrom: not_unique',
    ]);
    expect(await countRows('taxes', t)).toBe(4);
  });

  describe('GET /tax-groups/{id}/rate (seller in DE)', () => {
    it.each([
      { why: 'domestic, standard', group: 'standard', q: 'customerCountry=DE', expected: { rate: '19', category: 'S', country: 'DE', legalNote: null } },
      { why: 'domestic, reduced', group: 'reduced', q: 'customerCountry=DE', expected: { rate: '7', category: 'S', country: 'DE', legalNote: null } },
      { why: 'FR consumer: destination rate', group: 'standard', q: 'customerCountry=FR', expected: { rate: '20', category: 'S', country: 'FR', legalNote: null } },
      {
        why: 'FR consumer claiming a VAT id without being a business',
        group: 'standard',
        q: 'customerCountry=FR&vatIdValid=true',
        expected: { rate: '20', category: 'S', country: 'FR' },
      },
      { why: 'FR business without a valid VAT id', group: 'standard', q: 'customerCountry=FR&isBusiness=true&vatIdValid=false', expected: { rate: '20', category: 'S' } },
      {
        why: 'FR business with a valid VAT id: reverse charge',
        group: 'standard',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '0', category: 'AE', country: 'FR', legalNote: expect.stringMatching(/reverse charge/i) },
      },
      {
        why: 'FR business with reverse charge deactivated',
        group: 'standard',
        reverseChargeType: 'REVERSE_CHARGE_DEACTIVATED',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '20', category: 'S', country: 'FR' },
      },
      {
        why: 'FR business, intra-EU supply of goods',
        group: 'standard',
        reverseChargeType: 'REVERSE_CHARGE_INTRA_EU_SUPPLY',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '0', category: 'K', legalNote: expect.any(String) },
      },
      { why: 'US customer: export', group: 'standard', q: 'customerCountry=US', expected: { rate: '0', category: 'G', country: 'US', legalNote: expect.any(String) } },
      {
        why: 'exempt customer',
        group: 'standard',
        q: 'customerCountry=DE&taxExempt=exempt',
        expected: { rate: '0', category: 'E', legalNote: expect.stringMatching(/exempt/i) },
      },
    ])('$why', async ({ group, reverseChargeType, q, expected }) => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: group, ...(reverseChargeType ? { reverseChargeType } : {}) }));
      const res = await get(t, `/tax-groups/${g.id}/rate?${q}&date=2026-01-15`);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ ...expected, sellerCountry: 'DE', date: '2026-01-15', taxId: null });
    });

    it('a tenant tax overrides the rate from its validFrom on, not before, and only for its group', async () => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: 'standard' }));
      const other = await created(post(t, '/tax-groups', { type: 'standard' }));
      const tax = await created(post(t, '/taxes', { taxGroup: g.id, countryCode: 'DE', validFrom: '2026-07-01', rate: '16', code: 'DE16' }));
      const rate = async (group: string, date: string, country = 'DE') => (await ok(get(t, `/tax-groups/${group}/rate?customerCountry=${country}&date=${date}`)));
      expect(await rate(g.id, '2026-06-30')).toMatchObject({ rate: '19', taxId: null });
      expect(await rate(g.id, '2026-07-01')).toMatchObject({ rate: '16', category: 'S', taxId: tax.id });
      expect(await rate(g.id, '2027-03-01')).toMatchObject({ rate: '16', taxId: tax.id });
      expect(await rate(other.id, '2026-07-01')).toMatchObject({ rate: '19', taxId: null });
      expect(await rate(g.id, '2026-07-01', 'FR')).toMatchObject({ rate: '20', taxId: null });
      // A later tax wins from its own date on; a zero rate is Z.
      const zero = await created(post(t, '/taxes', { taxGroup: g.id, countryCode: 'DE', validFrom: '2027-01-01', rate: '0', code: 'DE0' }));
      expect(await rate(g.id, '2026-12-31')).toMatchObject({ rate: '16', taxId: tax.id });
      expect(await rate(g.id, '2027-01-01')).toMatchObject({ rate: '0', category: 'Z', taxId: zero.id });
      // Removing the tax brings the table rate back.
      expectStatus(await del(t, `/taxes/${tax.id}`), 204);
      expect(await rate(g.id, '2026-07-01')).toMatchObject({ rate: '19', taxId: null });
    });

    it.each(['customerCountry=XX&date=2026-01-01', 'customerCountry=DE', 'date=2026-01-01', 'customerCountry=DE&date=tomorrow', 'customerCountry=DE&date=2026-01-01&taxExempt=maybe'])(
      '400 for %s',
      async (q) => {
        const t = await createTenant();
        const g = await created(post(t, '/tax-groups', { type: 'standard' }));
        expectProblem(await get(t, `/tax-groups/${g.id}/rate?${q}`), 400);
      },
    );

    it('404 for an unknown group; 403 without tax-group:read', async () => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: 'standard' }));
      expectProblem(await get(t, `/tax-groups/missing/rate?customerCountry=DE&date=2026-01-01`), 404);
      const res = await api(`/tax-groups/${g.id}/rate?customerCountry=DE&date=2026-01-01`, { token: await keyWith(t, ['tax:read']) });
      expectProblem(res, 403);
      expect(res.body.detail).toContain('tax-group:read');
    });
  });
});
