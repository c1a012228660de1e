import { describe, expect, it } from 'vitest';
import { api, expect422, expectProblem, expectStatus, get, patch } from '../support/api';
import { createCustomer, createTenant, eventTypes } from '../support/builders';

// Tenant settings (/settings) and customer billing settings (/customers/{id}/settings/billing).
// Storage is shared by every test file, so every test works in a fresh tenant of its own.

describe('settings', () => {
  const DEFAULTS = [
    { key: 'requiresManualInvoiceApproval', value: false },
    { key: 'accounting.useDebitorAccounts', value: false },
    { key: 'accounting.debitorAccountStart', value: 10000 },
    { key: 'customer.numberFormat', value: 'C-{number:5}' },
    { key: 'invoice.numberFormat', value: 'RE-{number:10}' },
    { key: 'invoice.paymentTermDays', value: 14 },
    { key: 'dunning.enabled', value: true },
  ];

  it('GET /settings lists every known key once, with its default', async () => {
    const t = await createTenant();
    const res = await get(t, '/settings');
    expectStatus(res, 200);
    expect(res.body.settings).toEqual(expect.arrayContaining(DEFAULTS));
    const keys = res.body.settings.map((s: any) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('PATCH /settings changes the given keys, for this tenant only', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const res = await patch(t, '/settings', {
      settings: [
        { key: 'requiresManualInvoiceApproval', value: true },
        { key: 'invoice.paymentTermDays', value: 30 },
        { key: 'invoice.numberFormat', value: 'INV/{year}/{number}' },
      ],
    });
    expectStatus(res, 200);
    const expected = [
      { key: 'requiresManualInvoiceApproval', value: true },
      { key: 'invoice.paymentTermDays', value: 30 },
      { key: 'invoice.numberFormat', value: 'INV/{year}/{number}' },
      { key: 'dunning.enabled', value: true },
    ];
    expect(res.body.settings).toEqual(expect.arrayContaining(expected));
    expect((await get(t, '/settings')).body.settings).toEqual(expect.arrayContaining(expected));
    expect((await get(other, '/settings')).body.settings).toEqual(expect.arrayContaining(DEFAULTS));
  });

  it.each([
    { name: 'an unknown key', settings: [{ key: 'colour', value: 'red' }], path: 'settings[0].key' },
    { name: 'a string for a boolean', settings: [{ key: 'requiresManualInvoiceApproval', value: 'yes' }], path: 'settings[0].value' },
    { name: 'a string for a number', settings: [{ key: 'invoice.paymentTermDays', value: '14' }], path: 'settings[0].value' },
    { name: 'a number out of range', settings: [{ key: 'invoice.paymentTermDays', value: 366 }], path: 'settings[0].value' },
    { name: 'an invoice number format without {number}', settings: [{ key: 'invoice.numberFormat', value: 'RE-{year}' }], path: 'settings[0].value' },
    { name: 'an invoice number format with an unknown placeholder', settings: [{ key: 'invoice.numberFormat', value: '{number}-{week}' }], path: 'settings[0].value' },
    { name: 'a customer number format without {number}', settings: [{ key: 'customer.numberFormat', value: 'C-' }], path: 'settings[0].value' },
    {
      name: 'a bad second entry after a good one',
      settings: [
        { key: 'dunning.enabled', value: false },
        { key: 'dunning.enabled2', value: false },
      ],
      path: 'settings[1].key',
    },
  ])('PATCH /settings: 422 for $name, and nothing changes', async ({ settings, path }) => {
    const t = await createTenant();
    const res = await patch(t, '/settings', { settings });
    expect422(res, [path]);
    expect((await get(t, '/settings')).body.settings).toEqual(expect.arrayContaining(DEFAULTS));
  });

  it('PATCH /settings: 422 for each bad entry of one request', async () => {
    const t = await createTenant();
    const res = await patch(t, '/settings', {
      settings: [
        { key: 'nope', value: 1 },
        { key: 'dunning.enabled', value: 'no' },
        { key: 'invoice.numberFormat', value: 'RE' },
      ],
    });
    expect422(res, ['settings[0].key', 'settings[1].value', 'settings[2].value']);
  });

  it('PATCH /settings: application/json is a merge patch too, 415 for text/plain', async () => {
    const t = await createTenant();
    const body = { settings: [{ key: 'dunning.enabled', value: false }] };
    expectProblem(await api('/settings', { token: t.key, method: 'PATCH', rawBody: JSON.stringify(body), contentType: 'text/plain' }), 415);
    expect((await get(t, '/settings')).body.settings).toContainEqual({ key: 'dunning.enabled', value: true });
    expectStatus(await api('/settings', { token: t.key, method: 'PATCH', body, contentType: 'application/json' }), 200);
    expect((await get(t, '/settings')).body.settings).toContainEqual({ key: 'dunning.enabled', value: false });
  });

  describe('customer billing settings', () => {
    it('starts as null (inherit) and takes true, false and null', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      const path = `/customers/${c.id}/settings/billing`;
      const initial = await get(t, path);
      expectStatus(initial, 200);
      expect(initial.body).toEqual({ requiresManualInvoiceApproval: null });
      for (const value of [true, false, null]) {
        const res = await patch(t, path, { requiresManualInvoiceApproval: value });
        expectStatus(res, 200);
        expect(res.body).toEqual({ requiresManualInvoiceApproval: value });
        expect((await get(t, path)).body).toEqual({ requiresManualInvoiceApproval: value });
      }
      expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated', 'customer.updated', 'customer.updated']);
    });

    it('an empty merge patch changes nothing', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      const path = `/customers/${c.id}/settings/billing`;
      expectStatus(await patch(t, path, { requiresManualInvoiceApproval: true }), 200);
      const res = await patch(t, path, {});
      expectStatus(res, 200);
      expect(res.body).toEqual({ requiresManualInvoiceApproval: true });
    });

    it.each([
      { name: 'a string', body: { requiresManualInvoiceApproval: 'yes' }, path: 'requiresManualInvoiceApproval' },
      { name: 'an unknown key', body: { requiresManualInvoiceApproval: true, autoSend: true }, path: 'autoSend' },
    ])('422 for $name', async ({ body, path }) => {
      const t = await createTenant();
      const c = await createCustomer(t);
      expect422(await patch(t, `/customers/${c.id}/settings/billing`, body), [path]);
      expect((await get(t, `/customers/${c.id}/settings/billing`)).body).toEqual({ requiresManualInvoiceApproval: null });
      expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
    });

    it('404 for an unknown customer, 415 for text/plain', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      expectProblem(await get(t, '/customers/unknown-id/settings/billing'), 404);
      expectProblem(await patch(t, '/customers/unknown-id/settings/billing', { requiresManualInvoiceApproval: true }), 404);
      const res = await api(`/customers/${c.id}/settings/billing`, {
        token: t.key,
        method: 'PATCH',
        rawBody: JSON.stringify({ requiresManualInvoiceApproval: true }),
        contentType: 'text/plain',
      });
      expectProblem(res, 415);
      const json = await api(`/customers/${c.id}/settings/billing`, { token: t.key, method: 'PATCH', body: { requiresManualInvoiceApproval: true }, contentType: 'application/json' });
      expectStatus(json, 200);
      expect(json.body).toEqual({ requiresManualInvoiceApproval: true });
    });
  });
});
