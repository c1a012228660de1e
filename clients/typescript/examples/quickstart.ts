// The quickstart (docs/guides/quickstart.md) with the typed client: from a new tenant to a paid
// invoice. Run it against `npm run dev` with the project's Node 22, which runs TypeScript as is:
//   ADMIN_TOKEN=dev-admin-token npx node clients/typescript/examples/quickstart.ts
import { createBillingClient } from '../src/index.ts';

const baseUrl = process.env.BASE_URL ?? 'http://localhost:8787';
const admin = createBillingClient({ baseUrl, apiKey: process.env.ADMIN_TOKEN ?? 'dev-admin-token' });

const { data: tenant, error } = await admin.POST('/admin/tenants', {
  body: { name: 'Acme GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test' },
});
if (error) throw new Error(`${error.status} ${error.detail}`);
const billing = createBillingClient({ baseUrl, apiKey: tenant.apiKey.key });

/** The 2xx body, or the problem+json as an exception. */
async function ok<T>(call: Promise<{ data?: T; error?: { status: number; detail: string } }>): Promise<T> {
  const { data, error } = await call;
  if (error) throw new Error(`${error.status} ${error.detail}`);
  return data as T;
}

const family = await ok(billing.POST('/product-families', { body: { name: 'Software' } }));
const unit = await ok(billing.POST('/units', { body: { name: 'Seat', code: 'seat' } }));
const seats = await ok(billing.POST('/measurements', { body: { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' } }));
const tax = await ok(billing.POST('/tax-groups', { body: { type: 'standard' } }));
const product = await ok(
  billing.POST('/catalogue/products', { body: { name: 'Team plan', type: 'product', productFamilies: [family.id], measurement: seats.id, taxGroup: tax.id } }),
);
const price = await ok(
  billing.POST('/price-plans', { body: { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' } }),
);

const customer = await ok(
  billing.POST('/customers', {
    body: { email: 'jane@example.com', firstName: 'Jane', lastName: 'Doe', countryCode: 'DE', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' },
  }),
);
await ok(billing.POST('/payment-methods', { body: { customer: customer.id, type: 'fake_provider', gatewayName: 'testing', token: 'testing_succeeds' } }));

const draft = await ok(billing.POST('/subscriptions', { body: { customer: customer.id, items: [{ product: product.id, pricePlan: price.id, quantity: '3' }] } }));
const subscription = await ok(billing.PUT('/subscriptions/{id}/activate', { params: { path: { id: draft.id } }, body: {} }));
console.log(`subscription ${subscription.number}: ${subscription.status}`);

// Activation does not bill by itself: setting the test clock bills everything due up to its time.
const clock = await ok(billing.GET('/test-clock'));
await ok(billing.PUT('/test-clock', { body: { now: clock.now } }));
const invoices = await ok(billing.GET('/invoices', { params: { query: { subscription: subscription.id } } }));
const invoice = invoices.data[0]!;
console.log(`invoice ${invoice.number}: ${invoice.grossAmount.amount} ${invoice.grossAmount.currencyCode}, ${invoice.status}`);

// The testing card is charged by a queue job right after finalization.
for (let i = 0; i < 60; i++) {
  const current = await ok(billing.GET('/invoices/{id}', { params: { path: { id: invoice.id } } }));
  if (current.status === 'STATUS_PAID') {
    console.log(`invoice ${current.number}: paid on ${current.payDate}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 500));
}
const link = await ok(billing.PUT('/invoices/{id}/download-link', { params: { path: { id: invoice.id }, query: { secondsValid: '3600' } } }));
console.log(`PDF: ${link.url}`);
