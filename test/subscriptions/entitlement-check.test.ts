import { afterEach, describe, expect, it, vi } from 'vitest';
import { dbOf, del, expectProblem, expectStatus, get, post, put, type TestTenant } from '../support/api';
import { created, createCustomer, ok, setClock } from '../support/builders';
import { ENTITLEMENT_CHECK_TTL_MS } from '../../src/services/subscriptions/entitlement-check';
import { activeSubscription, draft, feature, setup } from './builders';

// GET /customers/{id}/entitlements?feature= answers from what the isolate read within the last
// ENTITLEMENT_CHECK_TTL_MS (docs/decisions.md, Subscriptions, usage, entitlements). Every check here
// follows one that remembered the answer before: a change committed through the API shows at the
// very next check; one written straight to D1 (as another isolate or the TenantObject would)
// within the TTL. Time is moved with fake timers, which the Worker shares with the tests.

afterEach(() => {
  vi.useRealTimers();
});

const check = async (t: TestTenant, customerId: string, code: string) => ok(get(t, `/customers/${customerId}/entitlements?feature=${code}`));

async function assign(t: TestTenant, featureId: string, productId: string, extra: Record<string, unknown> = {}) {
  return created(post(t, '/entitlement/feature-assignments', { feature: featureId, object: 'product', objectId: productId, value: 'true', ...extra }));
}

describe('the entitlement check, remembered per isolate', () => {
  it('shows a subscription that grants or ends an entitlement at the next check', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sso = await feature(t, 'sso');
    await assign(t, sso.id, c.pro.id);
    const d = await draft(f);
    expect((await check(t, customer.id, 'sso')).entitled).toBe(false);
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(await check(t, customer.id, 'sso')).toEqual({ customer: customer.id, feature: 'sso', entitled: true, values: ['true'], subscriptions: [sub.id] });
    expectStatus(await put(t, `/subscriptions/${sub.id}/terminate`, {}), 200);
    expect(await check(t, customer.id, 'sso')).toEqual({ customer: customer.id, feature: 'sso', entitled: false, values: [], subscriptions: [] });
  });

  it('shows an assignment applied to live subscriptions, and its deletion, at the next check', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    await activeSubscription(f);
    const beta = await feature(t, 'beta');
    expect((await check(t, customer.id, 'beta')).entitled).toBe(false);
    const applied = await assign(t, beta.id, c.pro.id, { applyToExistingSubscriptions: true });
    expect((await check(t, customer.id, 'beta')).entitled).toBe(true);
    expectStatus(await del(t, `/entitlement/feature-assignments/${applied.id}`), 204);
    expect((await check(t, customer.id, 'beta')).entitled).toBe(false);
  });

  it('sees an entitlement changed outside this isolate within the TTL', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sso = await feature(t, 'sso');
    await assign(t, sso.id, c.pro.id);
    await activeSubscription(f);
    expect((await check(t, customer.id, 'sso')).entitled).toBe(true);
    await (await dbOf(t)).prepare('UPDATE entitlements SET active = 0 WHERE tenant_id = ? AND customer_id = ?').bind(t.id, customer.id).run();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + ENTITLEMENT_CHECK_TTL_MS);
    expect((await check(t, customer.id, 'sso')).entitled).toBe(false);
  });

  it("applies each remembered entitlement's validity window at the time of every check", async () => {
    const f = await setup('2030-01-15T10:00:00Z');
    const { t, c, customer } = f;
    const trial = await feature(t, 'trial');
    await assign(t, trial.id, c.pro.id, { validFrom: '2030-01-01T00:00:00Z', validUntil: '2030-01-20T00:00:00Z' });
    const late = await feature(t, 'late');
    await assign(t, late.id, c.pro.id, { validFrom: '2030-01-01T00:00:00Z', validUntil: '2030-03-01T00:00:00Z' });
    await activeSubscription(f);
    expect((await check(t, customer.id, 'trial')).entitled).toBe(true);
    expect((await check(t, customer.id, 'late')).entitled).toBe(true);
    await setClock(t, '2030-01-20T00:00:00Z');
    expect((await check(t, customer.id, 'trial')).entitled).toBe(false);
    expect((await check(t, customer.id, 'late')).entitled).toBe(true);
  });

  it('answers 404 at the next check once the customer is deleted, and never with another tenant’s answer', async () => {
    const f = await setup();
    const { t } = f;
    const other = await setup();
    const gone = await createCustomer(t);
    expect((await check(t, gone.id, 'sso')).entitled).toBe(false);
    // Another tenant asking for this customer: remembered apart, and 404.
    expectProblem(await get(other.t, `/customers/${gone.id}/entitlements?feature=sso`), 404);
    expectStatus(await del(t, `/customers/${gone.id}`), 204);
    expectProblem(await get(t, `/customers/${gone.id}/entitlements?feature=sso`), 404);
  });
});
