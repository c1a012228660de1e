import { describe, expect, it } from 'vitest';
import { expectProblem, expectStatus, get, put, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { createGroup, UNREGISTERED_VAT_ID, VALID_VAT_ID } from './builders';

// The filters of GET /customers that Fynn's docs and the n8n node use, in both spellings of the
// nested ones, and the closed query (an unknown parameter is 400, never silently ignored).

describe('GET /customers filters (Fynn names)', () => {
  async function people(t: TestTenant) {
    const keyAccounts = await createGroup(t, 'Key Accounts');
    const smallShops = await createGroup(t, 'Small shops');
    const partner = await createCustomer(t, { email: 'partner@agency.example', companyName: 'Agency AG', isPartner: true, ledgerId: 'D-9' });
    const anna = await createCustomer(t, {
      email: 'anna@alpha.example',
      firstName: 'Anna',
      lastName: 'Berg',
      companyName: 'Alpha Handel GmbH',
      vatId: VALID_VAT_ID,
      datevId: '10001',
      customerGroup: keyAccounts.id,
      invoiceEmail: 'Rechnung@Alpha.example',
    });
    const bernd = await createCustomer(t, {
      email: 'bernd@beta.example',
      firstName: 'Bernd',
      lastName: 'Annaberg',
      vatId: UNREGISTERED_VAT_ID,
      ledgerId: '10002',
      customerGroup: smallShops.id,
    });
    expectStatus(await put(t, `/customers/${bernd.id}/partner`, { partner: partner.id }), 200);
    return { names: { [partner.id]: 'partner', [anna.id]: 'anna', [bernd.id]: 'bernd' } as Record<string, string>, partner };
  }

  it.each([
    { query: 'firstName=ann', expected: ['anna'] },
    { query: 'firstName=BERND', expected: ['bernd'] },
    { query: 'lastName=berg', expected: ['anna', 'bernd'] },
    { query: 'companyName=alpha', expected: ['anna'] },
    { query: 'companyName=agency+ag', expected: ['partner'] },
    { query: `vatId=${VALID_VAT_ID}`, expected: ['anna'] },
    { query: `vatId=${VALID_VAT_ID.slice(0, 2).toLowerCase()}+${VALID_VAT_ID.slice(2)}`, expected: ['anna'] },
    { query: 'vatId=DE1', expected: [] },
    { query: 'isVatIdValid=true', expected: ['anna'] },
    { query: 'isVatIdValid=false', expected: ['bernd', 'partner'] },
    { query: 'isVatIdValid=', expected: ['anna', 'bernd', 'partner'] },
    { query: 'datevId=10001', expected: ['anna'] },
    { query: 'datevId=10002', expected: ['bernd'] },
    { query: 'ledgerId=D-9', expected: ['partner'] },
    { query: 'datevId=1000', expected: [] },
    { query: 'customerGroup.name=key+accounts', expected: ['anna'] },
    { query: 'customerGroup%5Bname%5D=shops', expected: ['bernd'] },
    { query: 'customerGroup[name]=s', expected: ['anna', 'bernd'] },
    { query: 'emailAddresses.email=anna%40alpha.example', expected: ['anna'] },
    { query: 'emailAddresses%5Bemail%5D=rechnung%40alpha.example', expected: ['anna'] },
    { query: 'emailAddresses[email]=alpha.example', expected: [] },
    { query: 'firstName=&lastName=&companyName=', expected: ['anna', 'bernd', 'partner'] },
    { query: 'lastName=berg&firstName=bernd', expected: ['bernd'] },
  ])('filters by $query', async ({ query: q, expected }) => {
    const t = await createTenant();
    const { names } = await people(t);
    const res = await get(t, `/customers?${q}`);
    expectStatus(res, 200);
    expect(res.body.data.map((c: any) => names[c.id]).sort()).toEqual(expected);
    expect(res.body.meta.pagination.totalItems).toBe(expected.length);
  });

  it('filters by partner id', async () => {
    const t = await createTenant();
    const { names, partner } = await people(t);
    const res = await get(t, `/customers?partner=${partner.id}`);
    expect(res.body.data.map((c: any) => names[c.id])).toEqual(['bernd']);
    expect((await get(t, '/customers?partner=unknown')).body.data).toEqual([]);
  });

  it('keeps to the own tenant in every filter', async () => {
    const a = await createTenant();
    const b = await createTenant();
    await people(b);
    await createGroup(a, 'Key Accounts');
    for (const q of ['customerGroup.name=key', 'emailAddresses.email=anna%40alpha.example', 'datevId=10001', `vatId=${VALID_VAT_ID}`, 'isVatIdValid=true']) {
      expect((await get(a, `/customers?${q}`)).body.data, q).toEqual([]);
    }
  });

  it.each(['companyname=x', 'customerGroup.id=x', 'emailAddresses.mail=x', 'foo=bar', 'isVatIdValid=yes', 'search=a&search=b'])(
    '400 for the unknown or malformed filter %s, naming it',
    async (q) => {
      const t = await createTenant();
      const res = await get(t, `/customers?${q}`);
      expectProblem(res, 400);
      expect(res.body.violations.map((v: any) => v.propertyPath)).toEqual([q.split('=')[0]]);
    },
  );
});
