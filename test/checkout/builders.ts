// A small catalogue that a checkout link sells, and the public cart calls, shared by the checkout tests.
import { api, type ApiResponse, type TestTenant } from '../support/api';

async function make(t: TestTenant, path: string, body: unknown) {
  const res = await api(path, { token: t.key, body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Seats at 10.00 EUR per seat and month (tax group standard: 19 % in DE) in an active plan, a 10 %
 * coupon for that plan, and a link selling 2 seats (1 to 10) with coupons and quantity editable.
 */
export async function checkoutCatalogue(t: TestTenant, link: Record<string, unknown> = {}) {
  const fam = await make(t, '/product-families', { name: 'F' });
  const unit = await make(t, '/units', { name: 'Seat', code: 'seat' });
  const m = await make(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const tg = await make(t, '/tax-groups', { type: 'standard' });
  const product = await make(t, '/catalogue/products', { name: 'Seats', type: 'product', productFamilies: [fam.id], measurement: m.id, taxGroup: tg.id });
  const price = await make(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
  const plan = await make(t, '/plans', { family: fam.id, code: 'team', name: 'Team', items: [{ product: product.id, pricePlan: price.id, quantity: '1' }] });
  const activated = await api(`/plans/${plan.id}/activate`, { token: t.key, method: 'PUT' });
  if (activated.status !== 200) throw new Error(`plan activation: ${activated.status} ${JSON.stringify(activated.body)}`);
  const coupon = await make(t, '/coupons', { code: 'TEAM10', name: 'Ten off', type: 'percentage', percentage: 10, frequency: 'once', limitedToPlans: [plan.id] });
  const created = await make(t, '/checkout-links', {
    slug: 'team',
    afterCheckout: { action: 'confirmation_message', confirmationMessage: 'Thank you!' },
    options: { trialDays: 0, allowCoupons: true, quantityEditable: true, forceCompany: false },
    items: [{ product: product.id, pricePlan: price.id, plan: plan.id, quantity: 2, minQuantity: 1, maxQuantity: 10 }],
    ...link,
  });
  return { product, price, plan, coupon, link: created, taxGroup: tg };
}

export const openCart = (t: TestTenant, slug = 'team', query = '', token?: string): Promise<ApiResponse> =>
  api(`/public/checkout/links/${t.id}/${slug}/cart${query}`, { method: 'POST', token });
export const cartGet = (id: string) => api(`/public/checkout/cart/${id}`);
export const cartPut = (id: string, op: string, body?: unknown, token?: string) =>
  api(`/public/checkout/cart/${id}/${op}`, { method: 'PUT', token, ...(body === undefined ? {} : { body }) });

export const GERMAN_ADDRESS = { firstName: 'Ada', lastName: 'Lovelace', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin', countryCode: 'DE' };
