import { describe, expect, it } from 'vitest';
import { del, expect422, expectProblem, expectStatus, get, patch, put, type TestTenant } from '../support/api';
import { createCustomer, createTenant, eventTypes } from '../support/builders';
import { draft, setup as subscriptionFixture } from '../subscriptions/builders';

// Partners of a customer (/customers/{id}/partner). Storage is shared by every test file, so every
// test works in a fresh tenant of its own.

describe('partners', () => {
  async function setup() {
    const t = await createTenant();
    const partner = await createCustomer(t, { email: 'partner@agency.example', companyName: 'Agency AG', isPartner: true });
    const client = await createCustomer(t, { email: 'client@example.com', firstName: 'Cleo', lastName: 'Client' });
    return { t, partner, client };
  }

  it('assigns a partner, shows {id, name, number, email}, and removes it with null', async () => {
    const { t, partner, client } = await setup();
    expect(partner.isPartner).toBe(true);
    const res = await put(t, `/customers/${client.id}/partner`, { partner: partner.id });
    expectStatus(res, 200);
    const shown = { id: partner.id, name: 'Agency AG', number: partner.customerNumber, email: 'partner@agency.example' };
    expect(res.body.partner).toEqual(shown);
    expect((await get(t, `/customers/${client.id}`)).body.partner).toEqual(shown);
    expect(await eventTypes(t, client.id)).toEqual(['customer.created', 'customer.updated']);

    const removed = await put(t, `/customers/${client.id}/partner`, { partner: null });
    expectStatus(removed, 200);
    expect(removed.body.partner).toBeNull();
    expect((await get(t, `/customers/${client.id}`)).body.partner).toBeNull();
  });

  it('names a person partner by first and last name and follows its changes', async () => {
    const t = await createTenant();
    const partner = await createCustomer(t, { firstName: 'Pia', lastName: 'Partner', isPartner: true });
    const client = await createCustomer(t);
    expect((await put(t, `/customers/${client.id}/partner`, { partner: partner.id })).body.partner.name).toBe('Pia Partner');
    await patch(t, `/customers/${partner.id}`, { email: 'pia@new.example' });
    expect((await get(t, `/customers/${client.id}`)).body.partner).toMatchObject({ email: 'pia@new.example', name: 'Pia Partner' });
  });

  it("names a person partner the same way on the customer's subscriptions", async () => {
    const f = await subscriptionFixture();
    const partner = await createCustomer(f.t, { firstName: 'Pia', lastName: 'Partner', isPartner: true });
    await put(f.t, `/customers/${f.customer.id}/partner`, { partner: partner.id });
    const sub = await draft(f);
    expect((await get(f.t, `/subscriptions/${sub.id}`)).body.partner).toEqual({ id: partner.id, name: 'Pia Partner', number: partner.customerNumber, email: partner.email });
  });

  it.each([
    { name: 'a customer that is not a partner', target: 'plain' },
    { name: 'the customer itself', target: 'self' },
    { name: 'an unknown customer', target: 'unknown' },
    { name: 'a customer of another tenant', target: 'foreign' },
  ])('422 on partner for $name', async ({ target }) => {
    const { t, client } = await setup();
    const plain = await createCustomer(t);
    const foreignTenant = await createTenant();
    const foreign = await createCustomer(foreignTenant, { isPartner: true });
    // For "self", the customer is itself a partner, so only the self rule applies.
    const self = await createCustomer(t, { isPartner: true });
    const subject = target === 'self' ? self : client;
    const id = { plain: plain.id, self: self.id, unknown: 'no-such-customer', foreign: foreign.id }[target];
    const res = await put(t, `/customers/${subject.id}/partner`, { partner: id });
    expect422(res, ['partner']);
    expect((await get(t, `/customers/${subject.id}`)).body.partner).toBeNull();
    expect(await eventTypes(t, subject.id)).toEqual(['customer.created']);
  });

  it('422 for a body without partner or with an unknown field', async () => {
    const { t, client, partner } = await setup();
    expect422(await put(t, `/customers/${client.id}/partner`, {}), ['partner']);
    expect422(await put(t, `/customers/${client.id}/partner`, { partner: partner.id, share: 10 }), ['share']);
  });

  it('refuses isPartner false while the partner is assigned (422), allows it afterwards', async () => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    const res = await patch(t, `/customers/${partner.id}`, { isPartner: false });
    expect422(res, ['isPartner']);
    expect((await get(t, `/customers/${partner.id}`)).body.isPartner).toBe(true);
    expect(await eventTypes(t, partner.id)).toEqual(['customer.created']);

    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: null }), 200);
    const ok = await patch(t, `/customers/${partner.id}`, { isPartner: false });
    expectStatus(ok, 200);
    expect(ok.body.isPartner).toBe(false);
  });

  it.each([
    { name: 'PATCH isPartner: null', send: (t: TestTenant, p: any) => patch(t, `/customers/${p.id}`, { isPartner: null }) },
    { name: 'PUT without isPartner', send: (t: TestTenant, p: any) => put(t, `/customers/${p.id}`, { email: p.email, countryCode: p.countryCode, companyName: 'Agency AG' }) },
  ])('keeps a partner in use a partner on $name', async ({ send }) => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    await send(t, partner);
    // Either refused or left as a partner: a customer billed through a non-partner must not arise.
    expect((await get(t, `/customers/${partner.id}`)).body.isPartner).toBe(true);
  });

  it('refuses to delete a partner in use (409)', async () => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    expectProblem(await del(t, `/customers/${partner.id}`), 409);
    expectStatus(await get(t, `/customers/${partner.id}`), 200);
    expect(await eventTypes(t, partner.id)).toEqual(['customer.created']);
  });
});
