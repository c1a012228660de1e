// `npm run smoke`: the quickstart (docs/guides/quickstart.md) as a script, from nothing to a paid
// invoice and its PDF, against a running server: SMOKE_URL (default http://localhost:8787) with
// the ADMIN_TOKEN of the environment or of .dev.vars. `npm run smoke -- --start` starts its own
// local Worker on a free port first and stops it afterwards (CI does this after the tests).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScratchWorker } from './lib/scratch-worker.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function adminTokenOfDevVars() {
  const file = join(root, '.dev.vars');
  return existsSync(file) ? readFileSync(file, 'utf8').match(/^\s*ADMIN_TOKEN\s*=\s*["']?(.*?)["']?\s*$/m)?.[1] : undefined;
}

let step = 0;
function passed(what) {
  process.stdout.write(`  ✓ ${String(++step).padStart(2)} ${what}\n`);
}

async function quickstart(baseUrl, adminToken) {
  const call = async (method, path, token, body) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`);
    return text ? JSON.parse(text) : undefined;
  };

  const { tenant, apiKey } = await call('POST', '/admin/tenants', adminToken, {
    name: 'Smoke Test GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test',
  });
  passed(`tenant ${tenant.id} and its API key`);
  const KEY = apiKey.key;
  const api = (method, path, body) => call(method, path, KEY, body);

  const family = await api('POST', '/product-families', { name: 'Software' });
  const unit = await api('POST', '/units', { name: 'Seat', code: 'seat' });
  const seats = await api('POST', '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const tax = await api('POST', '/tax-groups', { type: 'standard' });
  const product = await api('POST', '/catalogue/products', { name: 'Team plan', type: 'product', productFamilies: [family.id], measurement: seats.id, taxGroup: tax.id });
  const price = await api('POST', '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
  passed('a product at 10.00 EUR a seat and month');

  const customer = await api('POST', '/customers', {
    email: 'jane@example.com', firstName: 'Jane', lastName: 'Doe', countryCode: 'DE', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin',
  });
  await api('POST', '/payment-methods', { customer: customer.id, type: 'fake_provider', gatewayName: 'testing', token: 'testing_succeeds' });
  passed(`customer ${customer.id} paying with the testing card`);

  const draft = await api('POST', '/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: price.id, quantity: '3' }] });
  const subscription = await api('PUT', `/subscriptions/${draft.id}/activate`, {});
  if (subscription.status !== 'active') throw new Error(`the subscription is ${subscription.status}, not active`);
  passed('an active subscription of 3 seats');

  // Activation does not bill by itself; the test clock bills everything due up to its time.
  const clock = await api('GET', '/test-clock');
  await api('PUT', '/test-clock', { now: clock.now });
  const [invoice] = (await api('GET', `/invoices?subscription=${subscription.id}`)).data;
  if (!invoice) throw new Error('the test clock made no invoice');
  // 3 seats × 10.00 = 30.00 net, 19 % VAT 5.70, 35.70 gross.
  if (invoice.grossAmount.amount !== '35.70') throw new Error(`invoice ${invoice.number} is ${invoice.grossAmount.amount}, not 35.70`);
  passed(`invoice ${invoice.number} of 35.70 EUR`);

  // The card is charged by a queue job right after the invoice is finalized.
  let paid;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    paid = await api('GET', `/invoices/${invoice.id}`);
    if (paid.status === 'STATUS_PAID') break;
  }
  if (paid.status !== 'STATUS_PAID') throw new Error(`invoice ${invoice.number} is ${paid.status} after 60 s, not paid`);
  passed(`invoice ${invoice.number} paid`);

  const link = await api('PUT', `/invoices/${invoice.id}/download-link?secondsValid=300`);
  let pdf;
  // The PDF is rendered by a queue job too; the link answers once it is there.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    pdf = await fetch(link.url, { signal: AbortSignal.timeout(30_000) });
    if (pdf.ok) break;
    await pdf.body?.cancel();
  }
  const bytes = new Uint8Array(await pdf.arrayBuffer());
  if (!pdf.ok || new TextDecoder().decode(bytes.slice(0, 5)) !== '%PDF-') throw new Error(`the invoice's PDF link answered ${pdf.status}`);
  passed(`its PDF (${bytes.length} bytes)`);
}

const start = process.argv.includes('--start');
let server;
let baseUrl = process.env.SMOKE_URL || 'http://localhost:8787';
let adminToken = process.env.ADMIN_TOKEN || adminTokenOfDevVars();
try {
  if (start) {
    process.stdout.write('smoke: starting a local Worker…\n');
    server = await startScratchWorker({ adminToken: 'smoke-admin-token' });
    ({ url: baseUrl, adminToken } = server);
  }
  if (!adminToken) throw new Error('No ADMIN_TOKEN: set it, or run `npm run dev` once (it writes .dev.vars).');
  process.stdout.write(`smoke: the quickstart against ${baseUrl}\n`);
  await quickstart(baseUrl, adminToken);
  process.stdout.write(`smoke: all ${step} steps of the quickstart passed\n`);
} catch (err) {
  process.stdout.write(`  ✗ ${String(step + 1).padStart(2)} ${err.message}\n`);
  process.stdout.write(`smoke: the quickstart failed at step ${step + 1}\n`);
  process.exitCode = 1;
} finally {
  await server?.stop();
}
