import { describe, expect, it } from 'vitest';
import { countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, post, put, query, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, eventTypes } from '../support/builders';
import { baseBody } from './builders';

// The e-mail addresses of a customer (/customers/{id}/email-addresses). Storage is shared by every
// test file, so every test works in a fresh tenant of its own.

describe('e-mail addresses sub-resource', () => {
  async function storedDefaults(t: TestTenant, customerId: string) {
    return query<{ email: string; type: string }>(
      t,
      'SELECT email, type FROM customer_email_addresses WHERE tenant_id = ? AND customer_id = ? AND is_default = 1 ORDER BY type',
      t.id,
      customerId,
    );
  }

  it('lists the e-mail addresses', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com' });
    const res = await get(t, `/customers/${c.id}/email-addresses`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual(expect.arrayContaining([c.defaultEmailAddress, c.defaultInvoiceEmailAddress]));
    expect(res.body.meta.pagination).toMatchObject({ totalItems: 2, pageTotalItems: 2 });
  });

  it('makes the first e-mail of a type its default; more of a type are not', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com' });
    const inv = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'bill@example.com', receiverName: 'Accounts', type: 'invoice' }));
    expect(inv).toEqual({ id: expect.any(String), email: 'bill@example.com', receiverName: 'Accounts', type: 'invoice', default: true });
    const cc = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'cc@example.com', type: 'default' }));
    expect(cc.default).toBe(false);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('login@example.com');
    expect(view.defaultInvoiceEmailAddress).toEqual(inv);
    expect(view.defaultEmailAddress.email).toBe('login@example.com');
    expect(await storedDefaults(t, c.id)).toEqual([
      { email: 'login@example.com', type: 'default' },
      { email: 'bill@example.com', type: 'invoice' },
    ]);
  });

  it('a new default e-mail of type default becomes the login e-mail', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'old-login@example.com' });
    const e = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'New-Login@example.com', type: 'default', default: true }));
    expect(e.default).toBe(true);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('New-Login@example.com');
    expect(view.defaultEmailAddress).toEqual(e);
    expect(view.emailAddresses.find((x: any) => x.id === c.defaultEmailAddress.id).default).toBe(false);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'New-Login@example.com', type: 'default' }]);
    // The old login is free for another customer; the new one is not.
    expectStatus(await post(t, '/customers', baseBody({ email: 'old-login@example.com' })), 201);
    expect422(await post(t, '/customers', baseBody({ email: 'new-login@example.com' })), ['email']);
    expect((await eventsOf(t, c.id)).at(-1)!.data).toMatchObject({ email: 'New-Login@example.com' });
  });

  it('422 when the new login e-mail belongs to another customer; nothing changes', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'owner@example.com' });
    const c = await createCustomer(t, { email: 'mine@example.com' });
    const res = await post(t, `/customers/${c.id}/email-addresses`, { email: 'OWNER@example.com', type: 'default', default: true });
    expect422(res, ['email']);
    expect((await get(t, `/customers/${c.id}`)).body.email).toBe('mine@example.com');
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'mine@example.com', type: 'default' }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('gets and replaces an e-mail address; replacing the login address changes the login', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com', invoiceEmail: 'bill@example.com' });
    const inv = c.defaultInvoiceEmailAddress;
    expect((await get(t, `/customers/${c.id}/email-addresses/${inv.id}`)).body).toEqual(inv);

    const res = await put(t, `/customers/${c.id}/email-addresses/${inv.id}`, { email: 'accounts@example.com', receiverName: 'Accounts', type: 'invoice' });
    expectStatus(res, 200);
    expect(res.body).toEqual({ id: inv.id, email: 'accounts@example.com', receiverName: 'Accounts', type: 'invoice', default: true });

    const login = await put(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`, { email: 'login2@example.com', type: 'default' });
    expectStatus(login, 200);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('login2@example.com');
    expect(view.defaultInvoiceEmailAddress.email).toBe('accounts@example.com');
  });

  it.each([
    { name: 'unsetting default', body: { default: false, type: 'default' } },
    { name: 'turning it into an invoice address', body: { type: 'invoice' } },
  ])('422 for $name on the login e-mail', async ({ body }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com' });
    const res = await put(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`, { email: 'login@example.com', ...body });
    expectProblem(res, 422);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'login@example.com', type: 'default' }]);
  });

  it('deletes an e-mail address but refuses the login e-mail with 409', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com' });
    expectProblem(await del(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`), 409);
    expect(await countRows('customer_email_addresses', t, 'AND id = ?', c.defaultEmailAddress.id)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
    expectStatus(await del(t, `/customers/${c.id}/email-addresses/${c.defaultInvoiceEmailAddress.id}`), 204);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.emailAddresses).toEqual([c.defaultEmailAddress]);
    expect(view.defaultInvoiceEmailAddress).toEqual(c.defaultEmailAddress);
    expectProblem(await get(t, `/customers/${c.id}/email-addresses/${c.defaultInvoiceEmailAddress.id}`), 404);
  });

  it.each([
    { name: 'an invalid address', body: { email: 'nope', type: 'invoice' }, path: 'email' },
    { name: 'a missing address', body: { type: 'invoice' }, path: 'email' },
    { name: 'an unknown type', body: { email: 'a@example.com', type: 'marketing' }, path: 'type' },
    { name: 'a 1-character receiverName', body: { email: 'a@example.com', type: 'invoice', receiverName: 'A' }, path: 'receiverName' },
    { name: 'an unknown field', body: { email: 'a@example.com', type: 'invoice', cc: true }, path: 'cc' },
  ])('422 on create for $name', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect422(await post(t, `/customers/${c.id}/email-addresses`, body), [path]);
    expect(await countRows('customer_email_addresses', t)).toBe(1);
  });
});
