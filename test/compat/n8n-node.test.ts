import { describe, expect, it } from 'vitest';
import { api, post, put } from '../support/api';
import { created, createCustomer, ok } from '../support/builders';
import { expect2xx, node, qs, returnAll } from '../support/n8n';
import { DEFAULT_NOW, item, paymentMethod, setup } from '../subscriptions/builders';

// Every request of the official n8n node, its trigger and its credential test, replayed in one
// workflow exactly as they are sent (docs/n8n-fynn-node-requests.md, §10: rows 1–23). The node
// treats any 2xx as success; what it reads from the answer is checked where it reads something
// (the trigger reads `id` at the top level, "Return All" reads `data`).

describe('the n8n node, its trigger and its credential test against the worker', () => {
  it('every request of the table succeeds unchanged', async () => {
    const f = await setup(DEFAULT_NOW);
    const { t, c } = f;

    // 1. Credential test: GET /available-webhook-events with the Bearer header only.
    const probe = await api('/available-webhook-events', { headers: { Authorization: `Bearer ${t.key}`, Accept: 'application/json, text/plain, */*' } });
    expect(probe.status).toBe(200);

    // 2. Trigger activation: POST /webhooks with exactly the trigger's body; it reads `id` at the top level.
    const hook = await api('/webhooks', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${t.key}`, Accept: 'application/json' },
      rawBody: JSON.stringify({ version: 'v1', events: ['customer.created'], enabled: true, url: 'https://n8n.example.com/webhook/0c7f/webhook' }),
    });
    expect2xx(hook);
    expect(hook.body.id).toEqual(expect.any(String));

    // 7. Create a customer (the node's body), 4. find it, 8. update it (partial PUT, customFields as text).
    await created(post(t, '/custom-fields', { name: 'field1', type: 'string', resource: 'customer' }));
    const createdCustomer = await node(t, 'POST', '/customers', { email: 'max@fynndemo.com', firstName: 'Max', companyName: 'Fynn Demo GmbH', countryCode: 'DE', language: 'de', gender: '', datevId: '10001' });
    expect(createdCustomer.status).toBe(201);
    const customerId = createdCustomer.body.id;
    expect2xx(await node(t, 'GET', `/customers/${customerId}`));
    const updated = await node(t, 'PUT', `/customers/${customerId}`, { countryCode: 'DE', timeZone: 'Europe/Berlin', language: 'de', lastName: 'Mustermann', customFields: '{"field1":"value1"}' });
    expect2xx(updated);
    expect(updated.body).toMatchObject({ email: 'max@fynndemo.com', firstName: 'Max', lastName: 'Mustermann', customFields: { field1: 'value1' } });

    // 5. Get Many with the filters that reach the wire, 6. "Return All" from page=0 in steps of 100.
    const filtered = await node(t, 'GET', `/customers?${qs({ limit: 30, page: 1, companyName: 'Fynn Demo', firstName: 'Max', lastName: 'Muster', datevId: '10001', isVatIdValid: false, search: 'fynndemo' })}`);
    expect2xx(filtered);
    expect(filtered.body.data.map((x: any) => x.id)).toEqual([customerId]);
    expect((await returnAll(t, '/customers')).length).toBe(2); // the fixture's customer and Max

    // 11. Update Payment Method (PATCH with application/json), 12. Request OTP (with the Bearer key).
    const card = await paymentMethod(t, customerId);
    expect2xx(await node(t, 'PATCH', `/customers/${customerId}/payment-method`, { paymentMethodId: card }));
    expect2xx(await node(t, 'POST', '/public/customer/request-otp', { email: 'max@fynndemo.com' }));

    // Subscriptions to act on: one in a trial, two active ones.
    const activate = async (body: Record<string, unknown>, activation: Record<string, unknown> = {}) => {
      const d = await created(post(t, '/subscriptions', { customer: f.customer.id, items: [item(c.pro, c.proMonthly)], ...body }));
      return ok(put(t, `/subscriptions/${d.id}/activate`, activation));
    };
    const trial = await activate({ name: 'Trial' }, { trialDays: 14 });
    const paused = await activate({ name: 'Pause and resume' });
    const cancelled = await activate({ name: 'Cancel' });
    const address = (await ok(api(`/customers/${f.customer.id}`, { token: t.key }))).addresses[0].id;
    const sepa = await paymentMethod(t, f.customer.id, 'sepa_debit');

    // 13. Find, 14. Get Many with its filters (status "" as the older node sends it), 15. Return All.
    expect2xx(await node(t, 'GET', `/subscriptions/${trial.id}`));
    const subs = await node(t, 'GET', `/subscriptions?${qs({ limit: 50, page: 1, customer: f.customer.id, status: '', search: 'Trial' })}`);
    expect2xx(subs);
    expect(subs.body.data.map((s: any) => s.id)).toEqual([trial.id]);
    expect2xx(await node(t, 'GET', `/subscriptions?${qs({ limit: 50, page: 1, number: trial.number, status: 'active' })}`));
    expect((await returnAll(t, '/subscriptions', { status: 'active' })).length).toBe(3);

    // 17. Extend Trial (a date-time without offset), 20. Revoke Trial (bodiless PUT).
    const extended = await node(t, 'PUT', `/subscriptions/${trial.id}/extend-trial`, { trialEndsOn: '2030-02-15T00:00:00' });
    expect2xx(extended);
    expect(extended.body.trialEndsOn).toBe('2030-02-14T23:00:00.000Z'); // midnight in Berlin (CET)
    expect2xx(await node(t, 'PUT', `/subscriptions/${trial.id}/revoke-trial`));

    // 18. Pause (bodiless PUT), 19. Resume with nextBillingDate "" (none).
    expect((await node(t, 'PUT', `/subscriptions/${paused.id}/pause`)).body.status).toBe('paused');
    expect((await node(t, 'PUT', `/subscriptions/${paused.id}/resume`, { nextBillingDate: '' })).body.status).toBe('active');

    // 21. Update Invoice Address, 22. Update Payment Method (PATCH with application/json).
    expect2xx(await node(t, 'PUT', `/subscriptions/${paused.id}/invoice-address`, { invoiceAddress: address }));
    expect2xx(await node(t, 'PATCH', `/subscriptions/${paused.id}/payment-method`, { paymentMethodId: sepa }));

    // 16. Cancel with the node's defaults (reason ""), and a custom date without offset.
    expect2xx(await node(t, 'PUT', `/subscriptions/${cancelled.id}/cancel`, { cancellationDateType: 'next_possible', sendConfirmationEmail: true, reason: '' }));
    const custom = await activate({ name: 'Cancel on a date' });
    const onDate = await node(t, 'PUT', `/subscriptions/${custom.id}/cancel`, { cancellationDateType: 'custom', sendConfirmationEmail: true, reason: 'Moving to another tool', cancellationDate: '2030-06-30T00:00:00' });
    expect2xx(onDate);
    expect(onDate.body.cancellationDate).toBe('2030-06-29T22:00:00.000Z'); // midnight in Berlin (CEST)

    // 23. Find an invoice (billed when the clock moves on).
    await ok(put(t, '/test-clock', { now: '2030-01-16T10:00:00Z' }));
    const invoices = (await ok(api(`/invoices?subscription=${paused.id}`, { token: t.key }))).data;
    expect(invoices.length).toBeGreaterThan(0);
    expect2xx(await node(t, 'GET', `/invoices/${invoices[0].id}`));

    // 10. Archive (bodiless PUT), 9. Delete (a customer without subscriptions or documents).
    const spare = await createCustomer(t, { email: 'spare@fynndemo.com' });
    expect((await node(t, 'PUT', `/customers/${spare.id}/archive`)).body.status).toBe('STATUS_ARCHIVED');
    expect2xx(await node(t, 'DELETE', `/customers/${spare.id}`));

    // 3. Trigger deactivation: DELETE /webhooks/{id} with the Bearer header only.
    expect2xx(await api(`/webhooks/${hook.body.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.key}` } }));
  });
});
