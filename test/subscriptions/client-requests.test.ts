import { describe, expect, it } from 'vitest';
import { api, eventsOf, expectProblem, get, post, put, violations } from '../support/api';
import { created, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, nonBillingEventTypes, paymentMethod, setup, storedSubscription, subscriptionRow } from './builders';

// Subscription actions as Fynn's clients send them: the n8n node (fynnplatform/n8n-nodes-fynn,
// its requests catalogued in docs/n8n-fynn-node-requests.md §4) and code written from
// docs.fynn.eu. Every test works in a fresh tenant with its test clock set first.

describe('resume as the n8n node sends it', () => {
  it('takes Content-Type: application/json without a body, and nextBillingDate "" as none', async () => {
    const f = await setup();
    const { t } = f;
    for (const send of [
      // The node sends every action with Content-Type: application/json; a bodiless one has no body at all.
      (id: string) => api(`/subscriptions/${id}/resume`, { token: t.key, method: 'PUT', contentType: 'application/json' }),
      // A date the user left empty arrives as "".
      (id: string) => put(t, `/subscriptions/${id}/resume`, { nextBillingDate: '' }),
    ]) {
      const sub = await activeSubscription(f);
      await ok(put(t, `/subscriptions/${sub.id}/pause`));
      const resumed = await send(sub.id);
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      // Without a next billing date the missed periods are billed, none is skipped.
      expect(resumed.body).toMatchObject({ status: 'active', pausedAt: null });
      expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'active', billing_resume_at: null });
    }
  });
});

describe('the OpenAPI document of these bodies', () => {
  it('documents "" as none beside a timestamp, so a validator built from it accepts what the server accepts', async () => {
    const schemas = (await api('/openapi.json')).body.components.schemas;
    for (const field of [schemas.SubscriptionResume.properties.nextBillingDate, schemas.SubscriptionCancel.properties.cancellationDate]) {
      expect(field.anyOf).toContainEqual({ type: 'string', enum: [''] });
      expect(field.anyOf).toContainEqual({ type: 'null' });
    }
  });
});

describe('cancel as Fynn clients send it', () => {
  it("takes the node's body: reason \"\" is none, sendConfirmationEmail is accepted", async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const res = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'next_possible', sendConfirmationEmail: true, reason: '' }));
    expect(res).toMatchObject({ isCancellationPending: false, cancellationReason: null, cancellationReasonText: null });
    // Open-ended without notice: the next possible date is now.
    expect(res.status).toBe('cancelled');
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ cancellation_reason_id: null, cancellation_reason_text: null });
  });

  it('takes reason as a reason id, a reason code or free text; an unknown id is 422', async () => {
    const f = await setup();
    const { t } = f;
    const reason = await created(post(t, '/cancellation-reasons', { code: 'too-expensive', name: 'Too expensive' }));
    const cancel = async (value: string) => {
      const sub = await activeSubscription(f);
      const body = { cancellationDateType: 'custom', cancellationDate: '2030-06-01T00:00:00Z', reason: value, sendConfirmationEmail: false };
      return { id: sub.id, res: await ok(put(t, `/subscriptions/${sub.id}/cancel`, body)) };
    };
    const byId = await cancel(reason.id);
    expect(byId.res).toMatchObject({ cancellationReason: { id: reason.id, code: 'too-expensive' }, cancellationReasonText: null });
    const byCode = await cancel('too-expensive');
    expect(byCode.res).toMatchObject({ cancellationReason: { id: reason.id, code: 'too-expensive', name: 'Too expensive' }, cancellationReasonText: null });
    expect(await subscriptionRow(t, byCode.id)).toMatchObject({ cancellation_reason_id: reason.id, cancellation_reason_text: null });
    const byText = await cancel('  Zu teuer für unser Team  ');
    expect(byText.res).toMatchObject({ cancellationReason: null, cancellationReasonText: 'Zu teuer für unser Team', isCancellationPending: true });
    expect(await subscriptionRow(t, byText.id)).toMatchObject({ cancellation_reason_id: null, cancellation_reason_text: 'Zu teuer für unser Team' });
    // The event carries the subscription as shown, the text included.
    expect((await eventsOf(t, byText.id)).at(-1)).toMatchObject({ type: 'subscription.canceled', data: { cancellationReasonText: 'Zu teuer für unser Team' } });

    // Revoking the cancellation forgets its reason, text included.
    const revoked = await ok(put(t, `/subscriptions/${byText.id}/revoke-cancellation`));
    expect(revoked).toMatchObject({ cancellationReason: null, cancellationReasonText: null });

    // A value shaped like one of our ids names a reason: a mistyped id is refused, never kept as text.
    const other = await activeSubscription(f);
    const unknown = await refusedUnchanged(t, storedSubscription(t, other.id), () =>
      put(t, `/subscriptions/${other.id}/cancel`, { cancellationDateType: 'immediate', reason: '01a20879-0000-7000-8000-000000000000' }),
    );
    expect(violations(unknown)).toEqual(['reason: not_found']);
    const long = await refusedUnchanged(t, storedSubscription(t, other.id), () => put(t, `/subscriptions/${other.id}/cancel`, { cancellationDateType: 'immediate', reason: 'x'.repeat(1001) }));
    expect(violations(long)).toEqual(['reason: too_big']);
  });
});

describe('payment method as the node (PATCH) and the docs (PUT) set it', () => {
  it('PUT takes {paymentMethodId} as application/json, like PATCH', async () => {
    const f = await setup();
    const { t, customer } = f;
    const card = await paymentMethod(t, customer.id, 'card', true);
    const sepa = await paymentMethod(t, customer.id, 'sepa_debit');
    const sub = await activeSubscription(f);
    const set = await ok(put(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: sepa }));
    expect(set).toMatchObject({ paymentMethod: { id: sepa, type: 'sepa_debit' }, defaultPaymentMethod: false });
    expect((await subscriptionRow(t, sub.id))!.payment_method_id).toBe(sepa);
    const back = await ok(put(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: null }));
    expect(back).toMatchObject({ paymentMethod: { id: card }, defaultPaymentMethod: true });
    expect(violations(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: 'nope' })))).toEqual([
      'paymentMethodId: not_found',
    ]);
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.payment_method.updated', 'subscription.payment_method.updated']);
  });

  it('PATCH declares application/json beside application/merge-patch+json (the node sends every PATCH as JSON)', async () => {
    const doc = (await api('/openapi.json')).body;
    expect(Object.keys(doc.paths['/subscriptions/{id}/payment-method'].patch.requestBody.content).sort()).toEqual(['application/json', 'application/merge-patch+json']);
    expect(Object.keys(doc.paths['/subscriptions/{id}/payment-method'].put.requestBody.content)).toEqual(['application/json']);
  });
});

describe('order products', () => {
  it('answers 201 as Fynn does', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f);
    const res = await post(t, `/subscriptions/${sub.id}/products`, { products: [{ product: c.storage.id, pricePlan: c.storageMonthly.id, quantity: '2' }] });
    expect(res.status).toBe(201);
    expect(res.body.items.map((i: any) => [i.product.name, i.type, i.quantity])).toEqual([
      ['Pro', 'item', '1'],
      ['Extra storage', 'addon', '2'],
    ]);
    expectProblem(await post(t, `/subscriptions/nope/products`, { products: [{ product: c.storage.id, pricePlan: c.storageMonthly.id }] }), 404);
    await setClock(t, '2030-01-16T00:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).items).toHaveLength(2);
  });
});
