// Builders of the catalogue tests (test/catalogue/*.test.ts).
import { post, unique, type TestTenant, dbOf } from '../support/api';
import { created } from '../support/builders';

/** Records a redemption as activating a subscription with the coupon does: a row in coupon_redemptions. */
export async function redeem(t: TestTenant, couponId: string, customerId: string, tenantId = t.id) {
  await (await dbOf(tenantId)).prepare('INSERT INTO coupon_redemptions (id, tenant_id, coupon_id, customer_id, subscription_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .bind(unique('red'), tenantId, couponId, customerId, null, new Date().toISOString())
    .run();
}

export interface Refs {
  family: any;
  unit: any;
  /** recurring, last_value */
  measurement: any;
  /** metered, sum */
  metered: any;
  taxGroup: any;
}

export async function refs(t: TestTenant): Promise<Refs> {
  const family = await created(post(t, '/product-families', { name: 'Software' }));
  const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
  const measurement = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' }));
  const metered = await created(post(t, '/measurements', { unit: unit.id, code: 'api-calls', aggregationType: 'sum', type: 'metered' }));
  const taxGroup = await created(post(t, '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' }));
  return { family, unit, measurement, metered, taxGroup };
}

export const productBody = (r: Refs, overrides: Record<string, unknown> = {}) => ({
  name: 'Pro',
  type: 'product',
  productFamilies: [r.family.id],
  measurement: r.measurement.id,
  taxGroup: r.taxGroup.id,
  ...overrides,
});

export const pricePlanBody = (product: string, overrides: Record<string, unknown> = {}) => ({
  product,
  calculationType: 'flat_fee',
  currencyCode: 'EUR',
  price: { amount: '10' },
  billingInterval: '1M',
  ...overrides,
});

export async function createProduct(t: TestTenant, r: Refs, overrides: Record<string, unknown> = {}) {
  return created(post(t, '/catalogue/products', productBody(r, overrides)));
}

export async function createPricePlan(t: TestTenant, product: string, overrides: Record<string, unknown> = {}) {
  return created(post(t, '/price-plans', pricePlanBody(product, overrides)));
}

/** A product with a flat 10 EUR monthly price plan and a draft plan selling it. */
export async function sellable(t: TestTenant) {
  const r = await refs(t);
  const product = await createProduct(t, r);
  const pricePlan = await createPricePlan(t, product.id);
  const plan = await created(post(t, '/plans', { family: r.family.id, code: unique('plan'), name: 'Pro monthly', items: [{ product: product.id, pricePlan: pricePlan.id }] }));
  return { r, product, pricePlan, plan };
}
