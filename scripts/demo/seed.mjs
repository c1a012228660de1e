// The demo tenant of `npm run dev`: a small software company with three months of billing behind
// it, made through the public API exactly as a user would make it (so the seeding also exercises
// what users use). Every write carries an Idempotency-Key derived from its step, so a seeding that
// was interrupted continues where it stopped when started again (within the 24 hours keys are kept).

const DAY = 86_400_000;

/** The first of the month `monthsBack` months before `now`, 09:00 UTC. */
function monthStart(now, monthsBack) {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1, 9));
}

const iso = (d) => d.toISOString();
const day = (d) => d.toISOString().slice(0, 10);

/**
 * One client of the API: JSON in and out, the Idempotency-Key of the step, and `onResponse` told
 * about every answer (scripts/demo/record-examples.mjs keeps them as the document's examples).
 */
export function apiClient(baseUrl, token, { onResponse, keyPrefix = 'demo' } = {}) {
  let n = 0;
  return async function call(method, path, body, { contentType, idempotencyKey } = {}) {
    const headers = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = contentType ?? 'application/json';
    if (method === 'POST' || method === 'PUT') headers['Idempotency-Key'] = idempotencyKey ?? `${keyPrefix}-${++n}`;
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON (XML, HTML) */
    }
    onResponse?.({ method, path, status: res.status, body: parsed });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return parsed;
  };
}

/** Waits until `read()` satisfies `ok` (render and collection jobs run on queues after the answer). */
async function until(read, ok, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const IBAN_TENANT = 'DE89370400440532013000';
const BIC_TENANT = 'COBADEFFXXX';
const IBAN_ERIKA = 'DE02120300000000202051';

/** A camt.053.001.02 statement with one credit: the bank booking a SEPA debit batch, one line per collection. */
function camt053(account, id, bookingDate, collections) {
  const total = collections.reduce((sum, c) => sum + Math.round(Number(c.amount) * 100), 0);
  const amount = `${Math.floor(total / 100)}.${String(total % 100).padStart(2, '0')}`;
  const details = collections
    .map((c) => `<TxDtls><Refs><EndToEndId>${c.endToEndId}</EndToEndId></Refs><AmtDtls><TxAmt><Amt Ccy="EUR">${c.amount}</Amt></TxAmt></AmtDtls></TxDtls>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${bookingDate}T06:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>${bookingDate}T06:00:00</CreDtTm><Acct><Id><IBAN>${account}</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${bookingDate}</Dt></Dt></Bal><Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${bookingDate}</Dt></BookgDt><ValDt><Dt>${bookingDate}</Dt></ValDt><AcctSvcrRef>${id}-1</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>ESDD</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls>${details}</NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>
`;
}

/**
 * The steps of the seeding, each a name and a function of the shared state `s`. `s.api` is the
 * tenant's client; what a step makes is kept on `s` for the later ones.
 */
export const STEPS = [
  ['Letterhead, bank account and SEPA creditor id', async (s) => {
    await s.api('PUT', '/settings/documents', {
      seller: {
        name: 'Demo Software GmbH', street: 'Friedrichstraße 68', zip: '10117', city: 'Berlin', vatId: 'DE136695976',
        email: 'billing@demo-software.example', contactName: 'Buchhaltung', phone: '+49 30 1234567',
      },
      bankAccount: { iban: IBAN_TENANT, bic: BIC_TENANT, accountName: 'Demo Software GmbH', bankName: 'Commerzbank' },
      defaultEInvoiceType: 'zugferd',
    });
    await s.api('PATCH', '/settings', { settings: [{ key: 'sepa.creditorId', value: 'DE98ZZZ09999999999' }] });
  }],
  ['Test clock three months back', async (s) => {
    await s.api('PUT', '/test-clock', { now: iso(s.start) });
  }],
  ['Catalogue: units, measurements, tax group', async (s) => {
    s.family = await s.api('POST', '/product-families', { name: 'Cloud software' });
    const seat = await s.api('POST', '/units', { name: 'Seat', code: 'seat' });
    const call = await s.api('POST', '/units', { name: 'API call', code: 'api-call' });
    s.seats = await s.api('POST', '/measurements', { unit: seat.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
    s.calls = await s.api('POST', '/measurements', { unit: call.id, code: 'api-calls', aggregationType: 'sum', type: 'metered' });
    s.tax = await s.api('POST', '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' });
  }],
  ['Catalogue: Starter, Pro, API calls and a setup fee', async (s) => {
    const product = (name, measurement, type = 'product') =>
      s.api('POST', '/catalogue/products', { name, type, productFamilies: [s.family.id], measurement: measurement.id, taxGroup: s.tax.id });
    const price = (product, body) => s.api('POST', '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', ...body });
    s.starter = await product('Starter', s.seats);
    s.pro = await product('Pro', s.seats);
    s.apiProduct = await product('API calls', s.calls);
    s.setup = await product('Onboarding', s.seats, 'charge');
    s.prices = {
      starterMonthly: await price(s.starter, { price: { amount: '19.00' }, billingInterval: '1M' }),
      starterYearly: await price(s.starter, { price: { amount: '190.00' }, billingInterval: '1Y' }),
      proMonthly: await price(s.pro, { price: { amount: '49.00' }, billingInterval: '1M' }),
      proYearly: await price(s.pro, { price: { amount: '490.00' }, billingInterval: '1Y' }),
      // 1,000 calls a month free, then 0.002 EUR a call.
      apiCalls: await price(s.apiProduct, { price: { amount: '0.002' }, freeUnits: '1000', billingInterval: '1M' }),
      setupFee: await price(s.setup, { calculationType: 'flat_fee', price: { amount: '99.00' } }),
    };
  }],
  ['Plans (monthly and yearly) and the WELCOME20 coupon', async (s) => {
    const plan = async (code, name, pricePlan, product) => {
      const p = await s.api('POST', '/plans', { family: s.family.id, code, name, allowCheckout: true, items: [{ product: product.id, pricePlan: pricePlan.id, quantity: '1' }] });
      return s.api('PUT', `/plans/${p.id}/activate`);
    };
    s.plans = {
      starterMonthly: await plan('starter-monthly', 'Starter (monthly)', s.prices.starterMonthly, s.starter),
      starterYearly: await plan('starter-yearly', 'Starter (yearly)', s.prices.starterYearly, s.starter),
      proMonthly: await plan('pro-monthly', 'Pro (monthly)', s.prices.proMonthly, s.pro),
      proYearly: await plan('pro-yearly', 'Pro (yearly)', s.prices.proYearly, s.pro),
    };
    s.coupon = await s.api('POST', '/coupons', { code: 'WELCOME20', name: '20 % off the first invoice', type: 'percentage', percentage: 20, frequency: 'once' });
  }],
  ['Dunning rules: a reminder, then a letter with a fee', async (s) => {
    await s.api('POST', '/dunning/overdue-rules', { level: 1, type: 'reminder', daysOverdue: 3, dueInDays: 7 });
    await s.api('POST', '/dunning/overdue-rules', { level: 2, type: 'dunning', daysOverdue: 7, dueInDays: 7, dunningFee: { amount: '5.00', currencyCode: 'EUR' } });
  }],
  ['Customers in DE, FR and the US', async (s) => {
    s.erika = await s.api('POST', '/customers', {
      email: 'erika.mustermann@example.com', firstName: 'Erika', lastName: 'Mustermann', language: 'de', countryCode: 'DE',
      street: 'Hauptstraße', houseNumber: '5', zip: '10115', city: 'Berlin',
    });
    s.dubois = await s.api('POST', '/customers', {
      email: 'compta@atelier-dubois.example', companyName: 'Atelier Dubois SARL', firstName: 'Camille', lastName: 'Dubois', language: 'en',
      countryCode: 'FR', vatId: 'FR40303265045', street: 'Rue de Rivoli', houseNumber: '12', zip: '75004', city: 'Paris',
    });
    s.acme = await s.api('POST', '/customers', {
      email: 'ap@acme-robotics.example', companyName: 'Acme Robotics Inc.', firstName: 'Jordan', lastName: 'Lee', language: 'en',
      countryCode: 'US', street: 'Market Street', houseNumber: '500', zip: '94105', city: 'San Francisco',
    });
  }],
  ['Payment methods: a SEPA mandate and the testing card', async (s) => {
    s.mandate = await s.api('POST', '/payment-methods', {
      customer: s.erika.id, type: 'sepa_debit', sepaDebit: { iban: IBAN_ERIKA, bic: 'BYLADEM1001', accountHolder: 'Erika Mustermann' },
    });
    s.card = await s.api('POST', '/payment-methods', { customer: s.acme.id, type: 'fake_provider', gatewayName: 'testing', token: 'testing_succeeds' });
  }],
  ['Subscriptions: Starter with API usage, Pro yearly, Pro with onboarding', async (s) => {
    const subscribe = async (customer, name, items, extra = {}) => {
      const d = await s.api('POST', '/subscriptions', { customer: customer.id, name, items, ...extra });
      return s.api('PUT', `/subscriptions/${d.id}/activate`, {});
    };
    const item = (product, pricePlan, quantity = '1') => ({ product: product.id, pricePlan: pricePlan.id, quantity });
    s.subErika = await subscribe(s.erika, 'Starter', [item(s.starter, s.prices.starterMonthly), item(s.apiProduct, s.prices.apiCalls)], { coupons: ['WELCOME20'] });
    s.subDubois = await subscribe(s.dubois, 'Pro yearly', [item(s.pro, s.prices.proYearly, '3')]);
    s.subAcme = await subscribe(s.acme, 'Pro', [item(s.pro, s.prices.proMonthly, '5'), item(s.setup, s.prices.setupFee)]);
  }],
  ['Three months of billing with the test clock, SEPA files and bank statements', async (s) => {
    const callsItem = s.subErika.items.find((i) => i.product.id === s.apiProduct.id);
    s.sepaFiles = [];
    for (let month = 0; month < 3; month++) {
      const from = monthStart(s.now, 3 - month);
      // Usage over the month: 40 to 180 calls a day, the same every time the demo is made.
      const events = Array.from({ length: 25 }, (_, k) => ({
        id: `demo-${day(from)}-${k}`, subscriptionItem: callsItem.id, quantity: String(40 + ((k * 37 + month * 11) % 140)), measuredAt: iso(new Date(from.getTime() + (k + 1) * DAY)),
      }));
      await s.api('PUT', '/test-clock', { now: iso(new Date(from.getTime() + DAY)) });
      await s.api('POST', '/subscriptions/measurements', { events });
      // The mandate's invoices of the month go to the bank as a pain.008 file; the bank's statement
      // (camt.053) books the collection a few days later, which pays them.
      const file = await s.api('POST', '/sepa-xml', { type: 'direct_debit' });
      const detail = await s.api('GET', `/sepa-xml/${file.id}`);
      s.sepaFiles.push(file);
      await s.api('PUT', '/test-clock', { now: iso(new Date(from.getTime() + 5 * DAY)) });
      const booked = day(new Date(from.getTime() + 5 * DAY));
      const xml = camt053(IBAN_TENANT, `DEMO-${booked}`, booked, detail.transactions.map((t) => ({ endToEndId: t.endToEndId, amount: String(t.amount) })));
      await s.api('POST', '/payment/bank-account-transactions/import', xml, { contentType: 'application/xml' });
      await s.api('PUT', '/test-clock', { now: iso(monthStart(s.now, 2 - month)) });
    }
    s.sepaFile = s.sepaFiles.at(-1);
  }],
  ['A credit note, the card payments and the documents', async (s) => {
    const acmeInvoices = (await s.api('GET', `/invoices?customer=${s.acme.id}&order[creationDate]=asc&limit=10`)).data;
    s.cardInvoice = acmeInvoices[0];
    // A goodwill credit on Acme's latest invoice: 10 % of the first month's seats back.
    const latest = await s.api('GET', `/invoices/${acmeInvoices.at(-1).id}`);
    // Credited at the invoice's own tax (an export outside the EU: 0 %, its category).
    const { taxRate, taxCategory } = latest.positions.find((p) => p.kind !== 'header' && Number(p.netAmount.amount) > 0);
    s.creditNote = await s.api('POST', `/invoices/${latest.id}/credit`, {
      positions: [{ name: 'Goodwill credit: service interruption', unitPrice: '24.50', quantity: '1', taxRate, taxCategory }],
      reason: 'Service interruption',
    });
    // The card invoices are collected by a queue job, their PDFs rendered by another.
    const paid = await until(() => s.api('GET', `/invoices/${s.cardInvoice.id}`), (inv) => inv.status === 'STATUS_PAID');
    if (paid.status !== 'STATUS_PAID') throw new Error(`the card invoice ${paid.number} is ${paid.status} after a minute`);
  }],
  ['Dunning: the French invoice is overdue', async (s) => {
    // Dunning ran with each move of the clock; the demo is only worth showing with its letters.
    const [overdue] = (await s.api('GET', `/invoices?customer=${s.dubois.id}&limit=10`)).data;
    const letters = (await s.api('GET', `/dunning/documents?invoice=${overdue?.id}&limit=10`)).data;
    if (letters.length === 0) throw new Error(`the French invoice ${overdue?.number} was not reminded`);
  }],
  ['A checkout link and a webhook endpoint', async (s) => {
    s.checkout = await s.api('POST', '/checkout-links', {
      slug: 'pro-monthly',
      items: [{ product: s.pro.id, price: s.prices.proMonthly.id, quantity: 1 }],
      options: { trialDays: 14, allowCoupons: true, quantityEditable: true, forceCompany: false },
      afterCheckout: { action: 'confirmation_message', confirmationMessage: 'Welcome to Demo Software!' },
    });
    s.webhook = await s.api('POST', '/webhooks', { url: s.webhookUrl, events: ['*'] });
  }],
];

/**
 * Seeds a new demo tenant. `state` is what an earlier, interrupted seeding saved (its tenant and
 * key), `save(state)` persists progress. Returns what the banner shows.
 */
export async function seedDemo({ baseUrl, adminToken, state = {}, save = () => {}, onStep = () => {}, onResponse, webhookUrl, now = new Date() }) {
  if (!state.tenantId) {
    const admin = apiClient(baseUrl, adminToken, { onResponse, keyPrefix: 'demo-admin' });
    const created = await admin('POST', '/admin/tenants', {
      name: 'Demo Software GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test',
    }, { idempotencyKey: `demo-tenant-${Date.now()}` });
    // The key cannot be shown again: it is saved before anything else can fail.
    state = { tenantId: created.tenant.id, apiKey: created.apiKey.key, seeded: false, startedAt: iso(now) };
    save(state);
  }
  const s = { api: apiClient(baseUrl, state.apiKey, { onResponse, keyPrefix: `demo-${state.tenantId}` }), now: new Date(state.startedAt ?? iso(now)), webhookUrl };
  s.start = monthStart(s.now, 3);
  for (let i = 0; i < STEPS.length; i++) {
    const [name, run] = STEPS[i];
    onStep(name, i, STEPS.length);
    await run(s);
  }
  onStep('Done', STEPS.length, STEPS.length);
  const refs = { invoice: s.cardInvoice.id, sepaFile: s.sepaFile.id, checkout: s.checkout.url };
  const links = await demoLinks(baseUrl, state.apiKey, refs);
  state = { ...state, seeded: true, refs, links, webhookSecret: s.webhook.secret };
  save(state);
  return state;
}

/** Fresh signed links (valid 7 days) to the demo's documents: made again on every start, since they expire. */
export async function demoLinks(baseUrl, apiKey, refs) {
  const api = apiClient(baseUrl, apiKey, { keyPrefix: `demo-links-${Date.now()}` });
  const invoice = await api('PUT', `/invoices/${refs.invoice}/download-link?secondsValid=604800`);
  const sepa = await api('PUT', `/sepa-xml/${refs.sepaFile}/download-link?secondsValid=604800`);
  return { checkout: refs.checkout, invoicePdf: invoice.url, eInvoice: invoice.xmlUrl, sepaFile: sepa.url };
}
