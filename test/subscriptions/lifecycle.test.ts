import { describe, expect, it } from 'vitest';
import { countRows, del, eventsOf, expectProblem, get, patch, post, put, violations, type ApiResponse, dbOf } from '../support/api';
import { created, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, DEFAULT_NOW, draft, expectRefused, item, itemRows, nonBillingEventTypes, setup, storedSubscription, subscriptionRow, type Fixture } from './builders';

// The lifecycle of a subscription (spec §2.4; docs/state-machines.md): the state machine, activate,
// pause and resume, cancel and revoke-cancellation, terminate and trials. Storage is shared by
// every test file, so every test works in a fresh tenant of its own with its test clock set first.

type Action =
  | 'activate'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'revoke-cancellation'
  | 'terminate'
  | 'extend-trial'
  | 'revoke-trial'
  | 'update'
  | 'delete'
  | 'order-products'
  | 'change-payment-method'
  | 'change-invoice-address';
type Status = 'draft' | 'active' | 'paused' | 'cancelled' | 'terminated' | 'offer';

/** The transitions every subscription status allows (action → resulting status); everything else is 409. */
const TRANSITIONS: Record<Status, Partial<Record<Action, Status>>> = {
  draft: {
    activate: 'active',
    update: 'draft',
    delete: 'draft',
    'extend-trial': 'draft',
    'order-products': 'draft',
    'change-payment-method': 'draft',
    'change-invoice-address': 'draft',
  },
  active: {
    pause: 'paused',
    cancel: 'active',
    'revoke-cancellation': 'active',
    terminate: 'terminated',
    'extend-trial': 'active',
    'revoke-trial': 'active',
    update: 'active',
    'order-products': 'active',
    'change-payment-method': 'active',
    'change-invoice-address': 'active',
  },
  paused: {
    resume: 'active',
    cancel: 'paused',
    'revoke-cancellation': 'paused',
    terminate: 'terminated',
    update: 'paused',
    'change-payment-method': 'paused',
    'change-invoice-address': 'paused',
  },
  cancelled: { terminate: 'terminated', update: 'cancelled' },
  terminated: { update: 'terminated' },
  offer: { activate: 'active', update: 'offer', delete: 'offer' },
};
const ACTIONS = Object.keys(TRANSITIONS.active).concat('activate', 'resume', 'delete') as Action[];
const STATUSES = Object.keys(TRANSITIONS) as Status[];

/** Performs an action through the API, with a body that is valid for it. */
async function perform(f: Fixture, id: string, action: Action): Promise<ApiResponse> {
  const { t, c } = f;
  const at = `/subscriptions/${id}`;
  switch (action) {
    case 'activate':
    case 'pause':
    case 'revoke-cancellation':
    case 'terminate':
    case 'revoke-trial':
      return put(t, `${at}/${action}`, action === 'activate' ? {} : undefined);
    case 'resume':
      return put(t, `${at}/resume`, {});
    case 'cancel':
      return put(t, `${at}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-06-01T00:00:00Z' });
    case 'extend-trial':
      return put(t, `${at}/extend-trial`, { trialDays: 5 });
    case 'update': {
      const cur = (await get(t, at)).body;
      const items = cur.items.filter((i: any) => i.type === 'item').map((i: any) => ({ product: i.product.id, pricePlan: i.pricePlan.id, quantity: i.quantity }));
      return put(t, at, { customer: cur.customer.id, items, trialDays: cur.trialDays, name: 'Renamed' });
    }
    case 'delete':
      return del(t, at);
    case 'order-products':
      return post(t, `${at}/products`, { products: [item(c.storage, c.storageMonthly)] });
    case 'change-payment-method':
      return patch(t, `${at}/payment-method`, { paymentMethodId: null });
    case 'change-invoice-address':
      return put(t, `${at}/invoice-address`, { invoiceAddress: null });
  }
}

/** A subscription in `status`, with what `action` needs (a trial, a pending cancellation). */
async function subscriptionIn(f: Fixture, status: Status, action?: Action): Promise<string> {
  const { t } = f;
  const needsTrial = action === 'extend-trial' || action === 'revoke-trial';
  const d = await draft(f, needsTrial ? { trialDays: 10 } : {});
  if (status === 'draft') return d.id;
  if (status === 'offer') {
    await (await dbOf(t)).prepare("UPDATE subscriptions SET status = 'offer' WHERE tenant_id = ? AND id = ?").bind(t.id, d.id).run();
    return d.id;
  }
  await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
  if (action === 'revoke-cancellation') await ok(perform(f, d.id, 'cancel'));
  if (status === 'paused') await ok(put(t, `/subscriptions/${d.id}/pause`));
  if (status === 'cancelled') await ok(put(t, `/subscriptions/${d.id}/cancel`, { cancellationDateType: 'immediate' }));
  if (status === 'terminated') await ok(put(t, `/subscriptions/${d.id}/terminate`));
  return d.id;
}

describe('subscription state machine', () => {
  it('the transition table in src is the documented one', async () => {
    const { SUBSCRIPTION_TRANSITIONS } = await import('../../src/services/subscriptions/lifecycle');
    expect(SUBSCRIPTION_TRANSITIONS).toEqual(TRANSITIONS);
  });

  it('performs every allowed transition', async () => {
    const f = await setup();
    for (const status of STATUSES) {
      for (const [action, next] of Object.entries(TRANSITIONS[status]) as [Action, Status][]) {
        const id = await subscriptionIn(f, status, action);
        const res = await perform(f, id, action);
        const label = `${status} → ${action}`;
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(action === 'delete' ? 204 : action === 'order-products' ? 201 : 200);
        if (action === 'delete') {
          expect((await get(f.t, `/subscriptions/${id}`)).status, label).toBe(404);
        } else {
          expect(res.body.status, label).toBe(next);
          expect((await subscriptionRow(f.t, id))!.status, label).toBe(next);
        }
      }
    }
  });

  it('refuses every other transition with 409 invalid-transition naming the current status, changing nothing', async () => {
    const f = await setup();
    const subs = Object.fromEntries(await Promise.all(STATUSES.map(async (s) => [s, await subscriptionIn(f, s)] as const)));
    const eventsBefore = await countRows('events', f.t);
    const refused: string[] = [];
    for (const status of STATUSES) {
      for (const action of ACTIONS) {
        if (TRANSITIONS[status][action]) continue;
        refused.push(`${status}:${action}`);
        const res = await refusedUnchanged(f.t, storedSubscription(f.t, subs[status]!), () => perform(f, subs[status]!, action));
        expect(res.status, `${status} → ${action}: ${JSON.stringify(res.body)}`).toBe(409);
        expectRefused(res, status);
        expect(res.body.detail, `${status} → ${action}`).toContain(action);
      }
    }
    expect(refused).toHaveLength(STATUSES.length * ACTIONS.length - Object.values(TRANSITIONS).reduce((n, m) => n + Object.keys(m).length, 0));
    expect(await countRows('events', f.t)).toBe(eventsBefore);
  });

  it('refuses allowed actions whose condition does not hold with 409', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    for (const path of ['revoke-cancellation', 'revoke-trial']) {
      expectProblem(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/${path}`)), 409, '/problems/invalid-transition');
    }
    expectProblem(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 3 })), 409, '/problems/invalid-transition');
    await ok(perform(f, sub.id, 'cancel'));
    const twice = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'immediate' }));
    expectProblem(twice, 409, '/problems/invalid-transition');
  });
});

describe('activate', () => {
  it('starts billing now; trialDays in the body overrides the draft', async () => {
    const f = await setup();
    const { t } = f;
    const d = await draft(f, { trialDays: 14, items: [item(f.c.pro, f.c.proMonthly, '2'), item(f.c.api, f.c.apiMetered)] });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, { trialDays: 7 }));
    expect(sub).toMatchObject({
      status: 'active',
      activatedAt: DEFAULT_NOW,
      trialDays: 7,
      trialEndsOn: '2030-01-22T10:00:00.000Z',
      contractDetails: { contractStart: DEFAULT_NOW, contractEnd: null },
      nextBillingDate: '2030-01-22T10:00:00.000Z',
      isCancellationPending: false,
    });
    expect(sub.items.map((i: any) => [i.status, i.activatedAt])).toEqual([
      ['active', DEFAULT_NOW],
      ['active', DEFAULT_NOW],
    ]);
    // Recurring fees are billed in advance from the trial end, usage in arrears at the end of its period.
    expect(sub.items[0].billing).toEqual({ lastBilledAt: null, lastBilledFrom: null, lastBilledTo: null, nextBillingAt: '2030-01-22T10:00:00.000Z', billingInterval: '1M' });
    expect(sub.items[1].billing.nextBillingAt).toBe('2030-02-22T10:00:00.000Z');
    expect(await subscriptionRow(t, d.id)).toMatchObject({ status: 'active', activated_at: DEFAULT_NOW, trial_days: 7, trial_ends_on: '2030-01-22T10:00:00.000Z', billing_anchor: '2030-01-22T10:00:00.000Z' });
    expect((await itemRows(t, d.id)).map((r) => r.status)).toEqual(['active', 'active']);
    const events = await eventsOf(t, d.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.activated', 'entitlement.state.updated']);
    expect(events[1]!.data).toMatchObject({ id: d.id, status: 'active', trialEndsOn: '2030-01-22T10:00:00.000Z' });

    const plain = await draft(f, { trialDays: 14 });
    expect(await ok(put(t, `/subscriptions/${plain.id}/activate`))).toMatchObject({ trialDays: 14, trialEndsOn: '2030-01-29T10:00:00.000Z' });
    const none = await draft(f, { trialDays: 14 });
    expect(await ok(put(t, `/subscriptions/${none.id}/activate`, { trialDays: 0 }))).toMatchObject({ trialDays: 0, trialEndsOn: null, nextBillingDate: DEFAULT_NOW });
    // A future contract start is kept.
    const later = await draft(f, { contractDetails: { contractStart: '2030-03-01T00:00:00Z' } });
    expect((await ok(put(t, `/subscriptions/${later.id}/activate`, {}))).contractDetails.contractStart).toBe('2030-03-01T00:00:00.000Z');
  });

  it('aligns the billing anchor to a start_of_month billing group, visible in items[].billing.nextBillingAt', async () => {
    const f = await setup();
    const { t, c } = f;
    const group = await created(post(t, '/billing-groups', { name: 'First of the month', type: 'start_of_month' }));
    const sub = await activeSubscription(f, { billingGroup: group.id, items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] });
    // 15 January 11:00 Berlin → the next 1st of a month, 00:00 Berlin (UTC+1).
    expect(sub.items.map((i: any) => i.billing.nextBillingAt)).toEqual(['2030-01-31T23:00:00.000Z', '2030-01-31T23:00:00.000Z']);
    expect(sub.nextBillingDate).toBe('2030-01-31T23:00:00.000Z');
    expect((await subscriptionRow(t, sub.id))!.billing_anchor).toBe('2030-01-31T23:00:00.000Z');
    const yearly = await activeSubscription(f, { billingGroup: group.id, items: [item(c.pro, c.proYearly)] });
    expect(yearly.items[0].billing).toMatchObject({ nextBillingAt: '2030-01-31T23:00:00.000Z', billingInterval: '1Y' });
    // With a 20-day trial (ends 4 February) the first 1st after it is 1 March.
    const trial = await activeSubscription(f, { billingGroup: group.id }, { trialDays: 20 });
    expect(trial.items[0].billing.nextBillingAt).toBe('2030-02-28T23:00:00.000Z');
    // Once February is billed (the clock bills what is due), the next period starts on 1 March.
    await setClock(t, '2030-02-10T00:00:00.000Z');
    expect((await ok(get(t, `/subscription-items/${sub.items[0].id}`))).billing).toMatchObject({
      lastBilledFrom: '2030-01-31T23:00:00.000Z',
      lastBilledTo: '2030-02-28T23:00:00.000Z',
      nextBillingAt: '2030-02-28T23:00:00.000Z',
    });
  });

  it('refuses a draft whose product was archived or customer archived since', async () => {
    const f = await setup();
    const { t, c } = f;
    const d = await draft(f, { items: [item(c.storage, c.storageMonthly)] });
    await ok(put(t, `/catalogue/products/${c.storage.id}/archive`));
    expect(violations(await refusedUnchanged(t, storedSubscription(t, d.id), () => put(t, `/subscriptions/${d.id}/activate`, {})))).toEqual(['items[0].product: archived']);
    const other = await draft(f);
    await ok(put(t, `/customers/${f.customer.id}/archive`));
    expect(violations(await refusedUnchanged(t, storedSubscription(t, other.id), () => put(t, `/subscriptions/${other.id}/activate`, {})))).toEqual(['customer: not_active']);
    expect(violations(await refusedUnchanged(t, storedSubscription(t, other.id), () => put(t, `/subscriptions/${other.id}/activate`, { trialDays: -1 })))).toEqual(['trialDays: too_small']);
  });
});

describe('pause and resume', () => {
  it('pauses billing and resumes it; a nextBillingDate in the past is 422', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const paused = await ok(put(t, `/subscriptions/${sub.id}/pause`));
    expect(paused).toMatchObject({ status: 'paused', pausedAt: '2030-01-20T00:00:00.000Z', nextBillingDate: null });
    expect(paused.items[0].billing.nextBillingAt).toBeNull();
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'paused', paused_at: '2030-01-20T00:00:00.000Z' });

    await setClock(t, '2030-02-20T00:00:00.000Z');
    const past = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/resume`, { nextBillingDate: '2030-02-19T00:00:00Z' }));
    expect(violations(past)).toEqual(['nextBillingDate: in_past']);
    const resumed = await ok(put(t, `/subscriptions/${sub.id}/resume`));
    expect(resumed).toMatchObject({ status: 'active', pausedAt: null });
    expect(resumed.nextBillingDate).not.toBeNull();
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'active', paused_at: null, billing_resume_at: null });
    expect(await nonBillingEventTypes(t, sub.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'entitlement.state.updated',
      'subscription.paused',
      'subscription.resumed',
    ]);
  });

  it('resume with nextBillingDate skips the missed periods: billing restarts on that date', async () => {
    const f = await setup();
    const { t } = f;
    const skip = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${skip.id}/pause`));
    await setClock(t, '2030-02-20T00:00:00.000Z');
    const restarted = await ok(put(t, `/subscriptions/${skip.id}/resume`, { nextBillingDate: '2030-03-15T10:00:00Z' }));
    expect((await subscriptionRow(t, skip.id))!.billing_resume_at).toBe('2030-03-15T10:00:00.000Z');
    expect(restarted.status).toBe('active');
    expect(restarted.items[0].billing.nextBillingAt).toBe('2030-03-15T10:00:00.000Z');
    expect(restarted.nextBillingDate).toBe('2030-03-15T10:00:00.000Z');
  });
});

describe('cancel and revoke-cancellation', () => {
  it('cancels immediately with a reason: status cancelled, items terminated', async () => {
    const f = await setup();
    const { t } = f;
    const reason = await created(post(t, '/cancellation-reasons', { code: 'too-expensive', name: 'Too expensive' }));
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-02-01T00:00:00.000Z');
    const res = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'immediate', reason: reason.id, sendConfirmationEmail: true }));
    expect(res).toMatchObject({
      status: 'cancelled',
      cancellationDate: '2030-02-01T00:00:00.000Z',
      cancelledAt: '2030-02-01T00:00:00.000Z',
      cancellationReason: { id: reason.id, code: 'too-expensive', name: 'Too expensive' },
      isCancellationPending: false,
      nextPossibleCancellationDate: [],
      nextBillingDate: null,
    });
    expect(res.items.map((i: any) => [i.status, i.endDate])).toEqual([['terminated', '2030-02-01T00:00:00.000Z']]);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'cancelled', cancellation_reason_id: reason.id });
    expect((await itemRows(t, sub.id))[0]).toMatchObject({ status: 'terminated', end_date: '2030-02-01T00:00:00.000Z' });
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.canceled', 'entitlement.state.updated']);
  });

  it('cancels on a custom date (pending, revocable) and validates the body', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, { items: [item(f.c.pro, f.c.proMonthly), item(f.c.api, f.c.apiMetered)] });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ cancellationDateType: 'custom' }, ['cancellationDate: required']],
      [{ cancellationDateType: 'custom', cancellationDate: '2030-01-01T00:00:00Z' }, ['cancellationDate: in_past']],
      [{ cancellationDateType: 'immediate', cancellationDate: '2030-03-01T00:00:00Z' }, ['cancellationDate: not_allowed']],
      // A reason shaped like an id names a reason record; free text is other text.
      [{ cancellationDateType: 'immediate', reason: '01a20879-fd29-7009-8df6-bf150996e69e' }, ['reason: not_found']],
      [{ cancellationDateType: 'whenever' }, ['cancellationDateType: invalid_value']],
      [{}, ['cancellationDateType: invalid_type']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/cancel`, body));
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(violations(res).map((v) => v.split(': ')[0]), JSON.stringify(body)).toEqual(expected.map((v) => v.split(': ')[0]));
    }

    const pending = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-03-01T00:00:00+01:00' }));
    expect(pending).toMatchObject({
      status: 'active',
      cancellationDate: '2030-02-28T23:00:00.000Z',
      cancelledAt: DEFAULT_NOW,
      isCancellationPending: true,
      nextPossibleCancellationDate: [],
    });
    expect(pending.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['canceled', '2030-02-28T23:00:00.000Z'],
      ['canceled', '2030-02-28T23:00:00.000Z'],
    ]);
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['canceled', 'canceled']);

    await setClock(t, '2030-02-01T00:00:00.000Z');
    const revoked = await ok(put(t, `/subscriptions/${sub.id}/revoke-cancellation`));
    expect(revoked).toMatchObject({ status: 'active', cancellationDate: null, cancelledAt: null, cancellationReason: null, isCancellationPending: false });
    expect(revoked.nextPossibleCancellationDate).toEqual(['2030-02-01T00:00:00.000Z']);
    expect(revoked.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['active', null],
      ['active', null],
    ]);
    expect((await itemRows(t, sub.id)).map((r) => [r.status, r.end_date])).toEqual([
      ['active', null],
      ['active', null],
    ]);
    expectProblem(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/revoke-cancellation`)), 409, '/problems/invalid-transition');
    // The revoked date passing changes nothing.
    await setClock(t, '2030-03-05T00:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).status).toBe('active');
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.canceled', 'subscription.cancellation_revoked']);
  });

  it('next_possible honours a 12-month contract with 3 months notice; the pending cancellation takes effect when the clock passes it', async () => {
    // Both contracts start on 1 January 2025, 00:00 Berlin.
    const f = await setup('2024-12-31T23:00:00.000Z');
    const { t } = f;
    const terms = { periods: { contractPeriod: '12M', cancellationPeriod: '3M' } };
    const a = await activeSubscription(f, terms);
    const b = await activeSubscription(f, terms);
    expect(a.contractDetails).toEqual({ contractStart: '2024-12-31T23:00:00.000Z', contractEnd: '2025-12-31T23:00:00.000Z' });

    // 30 September: notice for the end of the first term is still possible (deadline 1 October 00:00 Berlin).
    await setClock(t, '2025-09-30T12:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${a.id}`))).nextPossibleCancellationDate).toEqual([
      '2025-12-31T23:00:00.000Z',
      '2026-12-31T23:00:00.000Z',
      '2027-12-31T23:00:00.000Z',
    ]);
    const cancelled = await ok(put(t, `/subscriptions/${a.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(cancelled).toMatchObject({ status: 'active', cancellationDate: '2025-12-31T23:00:00.000Z', isCancellationPending: true, nextPossibleCancellationDate: [] });
    expect(cancelled.items[0]).toMatchObject({ status: 'canceled', endDate: '2025-12-31T23:00:00.000Z' });

    // 2 October: too late for this term; the contract renews once more.
    await setClock(t, '2025-10-02T12:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${b.id}`))).nextPossibleCancellationDate).toEqual([
      '2026-12-31T23:00:00.000Z',
      '2027-12-31T23:00:00.000Z',
      '2028-12-31T23:00:00.000Z',
    ]);
    expect((await ok(put(t, `/subscriptions/${b.id}/cancel`, { cancellationDateType: 'next_possible' }))).cancellationDate).toBe('2026-12-31T23:00:00.000Z');

    // The clock passes a's date: it ends, b keeps running with its cancellation pending.
    await setClock(t, '2026-01-01T00:00:00.000Z');
    const ended = await ok(get(t, `/subscriptions/${a.id}`));
    expect(ended).toMatchObject({ status: 'cancelled', cancellationDate: '2025-12-31T23:00:00.000Z', isCancellationPending: false });
    expect(ended.items.map((i: any) => [i.status, i.endDate])).toEqual([['terminated', '2025-12-31T23:00:00.000Z']]);
    expect(await subscriptionRow(t, a.id)).toMatchObject({ status: 'cancelled' });
    expect((await itemRows(t, a.id))[0]).toMatchObject({ status: 'terminated' });
    expect(await ok(get(t, `/subscriptions/${b.id}`))).toMatchObject({ status: 'active', isCancellationPending: true, contractDetails: { contractEnd: '2026-12-31T23:00:00.000Z' } });
    const aEvents = ['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.canceled', 'subscription.updated', 'entitlement.state.updated'];
    expect(await nonBillingEventTypes(t, a.id)).toEqual(aEvents);
    // Moving on does not apply it twice.
    await setClock(t, '2026-02-01T00:00:00.000Z');
    expect(await nonBillingEventTypes(t, a.id)).toEqual(aEvents);
    expectRefused(await refusedUnchanged(t, storedSubscription(t, a.id), () => put(t, `/subscriptions/${a.id}/revoke-cancellation`)), 'cancelled');

    expect((await ok(put(t, `/subscriptions/${b.id}/revoke-cancellation`))).isCancellationPending).toBe(false);
  });

  it('an open-ended subscription with a notice period ends after the notice', async () => {
    const f = await setup();
    const sub = await activeSubscription(f, { periods: { cancellationPeriod: '1M' } });
    expect(sub.nextPossibleCancellationDate).toEqual(['2030-02-15T10:00:00.000Z']);
    const res = await ok(put(f.t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(res).toMatchObject({ cancellationDate: '2030-02-15T10:00:00.000Z', isCancellationPending: true });
  });
});

describe('terminate', () => {
  it('ends the subscription and its items at once', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f, { items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)], periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const res = await ok(put(t, `/subscriptions/${sub.id}/terminate`));
    expect(res).toMatchObject({ status: 'terminated', nextBillingDate: null, isCancellationPending: false, nextPossibleCancellationDate: [] });
    expect(res.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['terminated', '2030-01-20T00:00:00.000Z'],
      ['terminated', '2030-01-20T00:00:00.000Z'],
    ]);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'terminated', terminated_at: '2030-01-20T00:00:00.000Z' });
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['terminated', 'terminated']);
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.terminated', 'entitlement.state.updated']);
    expectRefused(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/terminate`)), 'terminated');
  });
});

describe('trials', () => {
  it('extend-trial by days or to a date; the new end must be later', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, {}, { trialDays: 14 });
    expect(sub.trialEndsOn).toBe('2030-01-29T10:00:00.000Z');
    const byDays = await ok(put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 5 }));
    expect(byDays).toMatchObject({ trialEndsOn: '2030-02-03T10:00:00.000Z', nextBillingDate: '2030-02-03T10:00:00.000Z' });
    expect(byDays.items[0].billing.nextBillingAt).toBe('2030-02-03T10:00:00.000Z');
    const toDate = await ok(put(t, `/subscriptions/${sub.id}/extend-trial`, { trialEndsOn: '2030-02-10T10:00:00+00:00' }));
    expect(toDate.trialEndsOn).toBe('2030-02-10T10:00:00.000Z');
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ trial_ends_on: '2030-02-10T10:00:00.000Z', billing_anchor: '2030-02-10T10:00:00.000Z' });

    const cases: [Record<string, unknown>, string[]][] = [
      [{ trialEndsOn: '2030-02-05T00:00:00Z' }, ['trialEndsOn: not_later']],
      [{ trialEndsOn: '2030-02-10T10:00:00Z' }, ['trialEndsOn: not_later']],
      [{ trialDays: 2, trialEndsOn: '2030-03-01T00:00:00Z' }, ['trialDays: one_of']],
      [{}, ['trialDays: one_of']],
      [{ trialDays: 0 }, ['trialDays: too_small']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/extend-trial`, body));
      expect(violations(res), JSON.stringify(body)).toEqual(expected);
    }
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.trial_extended', 'subscription.trial_extended']);

    // A draft's trial grows in days (it starts at activation).
    const d = await draft(f, { trialDays: 14 });
    expect((await ok(put(t, `/subscriptions/${d.id}/extend-trial`, { trialDays: 3 }))).trialDays).toBe(17);
    expect(violations(await refusedUnchanged(t, storedSubscription(t, d.id), () => put(t, `/subscriptions/${d.id}/extend-trial`, { trialEndsOn: '2030-03-01T00:00:00Z' })))).toEqual([
      'trialEndsOn: not_allowed',
    ]);
    expect(await nonBillingEventTypes(t, d.id)).toEqual(['subscription.created', 'subscription.trial_extended']);

    // Once the trial is over there is nothing to extend.
    await setClock(t, '2030-02-11T00:00:00.000Z');
    expectProblem(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 1 })), 409, '/problems/invalid-transition');
  });

  it('revoke-trial ends the trial now; a trial ending by the clock is announced once', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, {}, { trialDays: 14 });
    const expiring = await activeSubscription(f, {}, { trialDays: 3 });
    await setClock(t, '2030-01-17T10:00:00.000Z');
    const revoked = await ok(put(t, `/subscriptions/${sub.id}/revoke-trial`));
    expect(revoked).toMatchObject({ status: 'active', trialEndsOn: '2030-01-17T10:00:00.000Z', nextBillingDate: '2030-01-17T10:00:00.000Z' });
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ trial_expired_at: '2030-01-17T10:00:00.000Z' });
    expectProblem(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/revoke-trial`)), 409, '/problems/invalid-transition');

    await setClock(t, '2030-01-19T00:00:00.000Z');
    expect(await subscriptionRow(t, expiring.id)).toMatchObject({ trial_ends_on: '2030-01-18T10:00:00.000Z', trial_expired_at: '2030-01-19T00:00:00.000Z' });
    await setClock(t, '2030-01-25T00:00:00.000Z');
    const trialEvents = ['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.trial_expired'];
    expect(await nonBillingEventTypes(t, sub.id)).toEqual(trialEvents);
    expect(await nonBillingEventTypes(t, expiring.id)).toEqual(trialEvents);
    expectProblem(await refusedUnchanged(t, storedSubscription(t, expiring.id), () => put(t, `/subscriptions/${expiring.id}/revoke-trial`)), 409, '/problems/invalid-transition');
  });
});
