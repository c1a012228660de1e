import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, eventsOf, query, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// The guarded write path (src/db/commit.ts): two changes computed from the same read — the second
// gets 409 concurrent-update, the stored row keeps the first change, and only one event is written.
// Service functions are called directly with the stale row, so nothing depends on timing.

const NOW = '2026-06-01T08:00:00.000Z';

async function frozenTenant() {
  const t = await createTenant();
  await api('/test-clock', { method: 'PUT', token: t.key, body: { now: NOW } });
  return t;
}

async function workerContext(t: TestTenant) {
  const { openTenant } = await import('../../src/db/directory');
  const { createServiceContext } = await import('../../src/services/context');
  // The tenant's row and database, through the one door to its shard.
  const { db, tenant } = (await openTenant(env, t.id))!;
  return createServiceContext({ env, db, tenant, now: new Date(NOW) });
}

async function made(t: TestTenant, path: string, body: unknown) {
  const res = await api(path, { token: t.key, body });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body;
}

const concurrentUpdate = { status: 409, type: 'concurrent-update' };

/** One record of every resource the factory serves, all in the same tenant. */
async function catalogue(t: TestTenant) {
  const family = await made(t, '/product-families', { name: 'Family' });
  const unit = await made(t, '/units', { name: 'Unit', code: 'unit' });
  const measurement = await made(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const costCentre = await made(t, '/cost-centres', { name: 'Sales', code: 'CC' });
  const reason = await made(t, '/cancellation-reasons', { code: 'reason', name: 'Reason' });
  const billingGroup = await made(t, '/billing-groups', { name: 'Group', type: 'custom', customDay: 15 });
  const taxGroup = await made(t, '/tax-groups', { type: 'standard', internalDescription: 'VAT' });
  const tax = await made(t, '/taxes', { taxGroup: taxGroup.id, countryCode: 'FR', validFrom: '2025-01-01', rate: '5.5', code: 'FR' });
  const product = await made(t, '/catalogue/products', { name: 'Product', type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const pricePlan = await made(t, '/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '10' }, billingInterval: '1M' });
  const plan = await made(t, '/plans', { family: family.id, code: 'plan', name: 'Plan', items: [{ product: product.id, pricePlan: pricePlan.id }] });
  const coupon = await made(t, '/coupons', { code: 'COUPON', name: 'Coupon', type: 'percentage', percentage: 10, frequency: 'once' });
  const webhook = await made(t, '/webhooks', { url: 'https://hooks.example/billing', events: ['customer.updated'] });
  const feature = await made(t, '/entitlement/features', { code: 'sso', name: 'SSO', type: 'switch' });
  return { family, unit, measurement, costCentre, reason, billingGroup, taxGroup, tax, product, pricePlan, plan, coupon, webhook, feature };
}

describe('the guarded write path: factory resources', () => {
  it('a coupon changed from a stale read is 409; the first change stays and has the only event', async () => {
    const t = await frozenTenant();
    const coupon = await made(t, '/coupons', { code: 'STALE', name: 'Stale', type: 'percentage', percentage: 10, frequency: 'once' });
    const { couponService } = await import('../../src/services/catalogue/coupons');
    const ctx = await workerContext(t);
    const stale = await couponService.find(ctx, coupon.id);
    const first = await couponService.change(ctx, stale, { isEnabled: false }, 'coupon.toggled');
    // The clock has not moved, yet the first change moved updatedAt on: it is the concurrency token.
    expect(first.updatedAt).toBe('2026-06-01T08:00:00.001Z');
    await expect(couponService.change(ctx, stale, { name: 'Overwritten' }, 'coupon.updated')).rejects.toMatchObject(concurrentUpdate);
    await expect(couponService.update(ctx, coupon.id, couponService.hooks.writable!(stale) as never, stale)).rejects.toMatchObject(concurrentUpdate);

    const [row] = await query<{ name: string; is_enabled: number; updated_at: string }>(t, 'SELECT name, is_enabled, updated_at FROM coupons WHERE id = ?', coupon.id);
    expect(row).toEqual({ name: 'Stale', is_enabled: 0, updated_at: '2026-06-01T08:00:00.001Z' });
    expect((await eventsOf(t, coupon.id)).map((e) => e.type)).toEqual(['coupon.created', 'coupon.toggled']);
    // Read again, the change goes through.
    const fresh = await couponService.find(ctx, coupon.id);
    expect((await couponService.change(ctx, fresh, { name: 'Renamed' }, 'coupon.updated')).name).toBe('Renamed');
  });

  it('a plan updated twice from the same read: the second update is 409 and writes nothing', async () => {
    const t = await frozenTenant();
    const c = await catalogue(t);
    const { planService } = await import('../../src/services/catalogue/plans');
    const ctx = await workerContext(t);
    const stale = await planService.find(ctx, c.plan.id);
    const input = planService.hooks.writable!(stale) as Record<string, unknown>;
    await planService.update(ctx, c.plan.id, { ...input, name: 'First' } as never, stale);
    await expect(planService.update(ctx, c.plan.id, { ...input, name: 'Second' } as never, stale)).rejects.toMatchObject(concurrentUpdate);
    const res = await api(`/plans/${c.plan.id}`, { token: t.key });
    expect(res.body.name).toBe('First');
    const updates = (await eventsOf(t, c.plan.id)).filter((e) => e.type === 'plan.updated');
    expect(updates.map((e) => e.data.name)).toEqual(['First']);
  });

  it('guards every table the resource factory serves', async () => {
    const t = await frozenTenant();
    const c = await catalogue(t);
    const basics = await import('../../src/services/catalogue/basics');
    const { taxGroupService, taxService } = await import('../../src/services/catalogue/taxes');
    const { productService } = await import('../../src/services/catalogue/products');
    const { pricePlanService } = await import('../../src/services/catalogue/price-plans');
    const { planService } = await import('../../src/services/catalogue/plans');
    const { couponService } = await import('../../src/services/catalogue/coupons');
    const { webhookService } = await import('../../src/services/webhooks/webhooks');
    const { featureService } = await import('../../src/services/subscriptions/entitlements');
    const services = [
      [basics.productFamilyService, c.family],
      [basics.unitService, c.unit],
      [basics.measurementService, c.measurement],
      [basics.costCentreService, c.costCentre],
      [basics.cancellationReasonService, c.reason],
      [basics.billingGroupService, c.billingGroup],
      [taxGroupService, c.taxGroup],
      [taxService, c.tax],
      [productService, c.product],
      [pricePlanService, c.pricePlan],
      [planService, c.plan],
      [couponService, c.coupon],
      [webhookService, c.webhook],
      [featureService, c.feature],
    ] as const;
    const ctx = await workerContext(t);
    for (const [service, record] of services) {
      const s = service as unknown as {
        hooks: { label: string; events?: { updated?: string }; writable?(row: unknown): unknown };
        find(ctx: unknown, id: string): Promise<{ id: string; updatedAt: string }>;
        change(ctx: unknown, current: unknown, columns: unknown, event: string | undefined): Promise<unknown>;
        update(ctx: unknown, id: string, input: unknown, read?: unknown): Promise<unknown>;
      };
      const stale = await s.find(ctx, record.id);
      await s.change(ctx, stale, {}, s.hooks.events?.updated);
      await expect(s.update(ctx, record.id, s.hooks.writable!(stale), stale), s.hooks.label).rejects.toMatchObject(concurrentUpdate);
      await expect(s.change(ctx, stale, {}, s.hooks.events?.updated), s.hooks.label).rejects.toMatchObject(concurrentUpdate);
      expect((await s.find(ctx, record.id)).updatedAt, s.hooks.label).toBe('2026-06-01T08:00:00.001Z');
      // Webhooks announce no changes of their own; every other resource wrote one event, not two.
      if (s.hooks.events?.updated) expect((await eventsOf(t, record.id)).filter((e) => e.type === s.hooks.events?.updated), s.hooks.label).toHaveLength(1);
    }
  });
});

describe('the guarded write path: customers, subscriptions, invoices', () => {
  it('a customer changed from a stale read is 409 and keeps the first change', async () => {
    const t = await frozenTenant();
    const customer = await createCustomer(t, { firstName: 'Ada' });
    const { loadCustomer } = await import('../../src/services/customers/read');
    const { commitCustomerChange } = await import('../../src/services/customers/update');
    const ctx = await workerContext(t);
    const before = await loadCustomer(ctx, customer.id);
    await commitCustomerChange(ctx, before, { ...before.row, firstName: 'First' }, 'customer.updated');
    await expect(commitCustomerChange(ctx, before, { ...before.row, lastName: 'Second' }, 'customer.updated')).rejects.toMatchObject(concurrentUpdate);
    const [row] = await query<{ first_name: string; last_name: string | null }>(t, 'SELECT first_name, last_name FROM customers WHERE id = ?', customer.id);
    expect(row).toEqual({ first_name: 'First', last_name: customer.lastName ?? null });
    expect((await eventsOf(t, customer.id)).filter((e) => e.type === 'customer.updated').map((e) => e.data.firstName)).toEqual(['First']);
  });

  it('a merge patch computed from a stale read of the customer is 409 when its base is passed on', async () => {
    const t = await frozenTenant();
    const customer = await createCustomer(t, { firstName: 'Ada' });
    const { loadCustomer } = await import('../../src/services/customers/read');
    const { updateCustomer, writableCustomer } = await import('../../src/services/customers/update');
    const ctx = await workerContext(t);
    const base = await loadCustomer(ctx, customer.id);
    await updateCustomer(ctx, customer.id, { ...writableCustomer(base), firstName: 'Theirs' });
    await expect(updateCustomer(ctx, customer.id, { ...writableCustomer(base), lastName: 'Mine' }, base)).rejects.toMatchObject(concurrentUpdate);
    expect((await api(`/customers/${customer.id}`, { token: t.key })).body).toMatchObject({ firstName: 'Theirs', lastName: customer.lastName ?? null });
  });

  it('a subscription changed from a stale read is 409; its accompanying statements roll back too', async () => {
    const t = await frozenTenant();
    const c = await catalogue(t);
    const customer = await createCustomer(t);
    const sub = await made(t, '/subscriptions', { customer: customer.id, items: [{ product: c.product.id, pricePlan: c.pricePlan.id }] });
    const { loadSubscription } = await import('../../src/services/subscriptions/aggregate');
    const { commitSubscriptionChange } = await import('../../src/services/subscriptions/update');
    const { subscriptionComments } = await import('../../src/db/schema');
    const ctx = await workerContext(t);
    const before = await loadSubscription(ctx, sub.id);
    await commitSubscriptionChange(ctx, before, { name: 'First' }, 'subscription.updated');
    const comment = ctx.db.insert(subscriptionComments).values({ id: `comment-${sub.id}`, tenantId: t.id, subscriptionId: sub.id, text: 'lost', author: null, createdAt: NOW });
    await expect(commitSubscriptionChange(ctx, before, { name: 'Second' }, 'subscription.updated', { statements: [comment] })).rejects.toMatchObject(concurrentUpdate);
    const [row] = await query<{ name: string }>(t, 'SELECT name FROM subscriptions WHERE id = ?', sub.id);
    expect(row?.name).toBe('First');
    expect(await query(t, 'SELECT id FROM subscription_comments WHERE subscription_id = ?', sub.id)).toEqual([]);
    expect((await eventsOf(t, sub.id)).filter((e) => e.type === 'subscription.updated')).toHaveLength(1);
  });

  it('an invoice changed from a stale read is 409; a column written meanwhile without the guard is kept', async () => {
    const t = await frozenTenant();
    const customer = await createCustomer(t);
    const invoice = await made(t, '/invoices', { customer: customer.id, positions: [{ name: 'Work', unitPrice: '10.00', taxRate: '19' }] });
    const { loadInvoice } = await import('../../src/services/invoices/read');
    const { commitInvoiceChange } = await import('../../src/services/invoices/write');
    const ctx = await workerContext(t);
    const before = await loadInvoice(ctx, invoice.id);
    // A column written without the guard (as a failed render records its error) between read and write.
    await (await dbOf(t)).prepare('UPDATE invoices SET render_error = ? WHERE id = ?').bind('kept', invoice.id).run();
    await commitInvoiceChange(ctx, before, { internalNote: 'First' }, ['invoice.updated']);
    await expect(commitInvoiceChange(ctx, before, { internalNote: 'Second' }, ['invoice.updated'])).rejects.toMatchObject(concurrentUpdate);
    const [row] = await query<{ internal_note: string; render_error: string }>(t, 'SELECT internal_note, render_error FROM invoices WHERE id = ?', invoice.id);
    // Only the columns that changed are written, so the render error set meanwhile survives.
    expect(row).toEqual({ internal_note: 'First', render_error: 'kept' });
    expect((await eventsOf(t, invoice.id)).map((e) => e.type)).toEqual(['invoice.created', 'invoice.updated']);
  });

  it('customer groups and custom fields move updatedAt on under a frozen clock and are guarded by it', async () => {
    const t = await frozenTenant();
    const group = await made(t, '/customer-groups', { name: 'Group' });
    const { updateGroup } = await import('../../src/services/customers/groups');
    const { commitGuarded } = await import('../../src/db/commit');
    const { customerGroups } = await import('../../src/db/schema');
    const ctx = await workerContext(t);
    const [stale] = await ctx.db.select().from(customerGroups).where((await import('drizzle-orm')).eq(customerGroups.id, group.id));
    expect((await updateGroup(ctx, group.id, { name: 'First', description: null })).updatedAt).toBe('2026-06-01T08:00:00.001Z');
    expect((await updateGroup(ctx, group.id, { name: 'Second', description: null })).updatedAt).toBe('2026-06-01T08:00:00.002Z');
    await expect(commitGuarded(ctx, { table: customerGroups, current: stale!, changes: { name: 'Stale' }, conflict: 'x' })).rejects.toMatchObject(concurrentUpdate);
    expect((await api(`/customer-groups/${group.id}`, { token: t.key })).body.name).toBe('Second');

    const field = await made(t, '/custom-fields', { name: 'segment', type: 'string', resource: 'customer' });
    const { updateCustomField } = await import('../../src/services/customers/custom-fields');
    const changed = await updateCustomField(ctx, field.id, { name: 'segment2', type: 'string', resource: 'customer', required: false, options: null });
    expect(changed.updatedAt).toBe('2026-06-01T08:00:00.001Z');
  });
});
