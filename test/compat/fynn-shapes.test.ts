import { beforeAll, describe, expect, it } from 'vitest';
import { api, get, post, type ApiResponse } from '../support/api';
import { created, ok, setClock } from '../support/builders';
import { activeSubscription, DEFAULT_NOW, item, setup } from '../subscriptions/builders';
import { CREDITOR_ID, IBAN, MASKED_IBAN, paymentSettings, sepaMethod } from '../payments/builders';
import { checkoutCatalogue, openCart } from '../checkout/builders';
import { createTenant } from '../support/builders';
import { ITEM_MEASUREMENT_VALUES } from '../../src/schemas/subscriptions';

// Spec §2, field for field, where Fynn's clients found us apart (issue 22): what the OpenAPI
// document promises for each resource (the test client checks every response against it), and
// real responses of each resource carrying those fields with those types. Choices the spec leaves
// open are in docs/decisions.md, Response shapes.

type Json = Record<string, any>;

/** The `$ref`s and `type`s a property of the OpenAPI document allows (through anyOf/allOf/nullable). */
function kinds(prop: Json | undefined): string[] {
  if (!prop) return [];
  const own = [...(prop.$ref ? [String(prop.$ref).replace('#/components/schemas/', '')] : []), ...[prop.type ?? []].flat()];
  return [...own, ...[...(prop.anyOf ?? []), ...(prop.allOf ?? []), ...(prop.oneOf ?? [])].flatMap(kinds)];
}

describe('the OpenAPI document promises the spec shapes', () => {
  let schemas: Record<string, Json> = {};
  beforeAll(async () => {
    schemas = ((await api('/openapi.json')).body as Json).components.schemas;
  });
  // A path through properties (`[]`: an array's items), following `$ref`s on the way (not at the end).
  const deref = (s: Json | undefined): Json | undefined => {
    const ref = s?.$ref ?? [...(s?.anyOf ?? []), ...(s?.allOf ?? [])].find((x: Json) => x.$ref)?.$ref;
    return ref ? schemas[String(ref).replace('#/components/schemas/', '')] : s;
  };
  const prop = (schema: string, path: string) => path.split('.').reduce<Json | undefined>((s, k) => (k === '[]' ? s?.items : deref(s)?.properties?.[k]), schemas[schema]);

  it.each([
    // §2.5: the invoice embeds its payment method and its referenced document; money is an object.
    ['Invoice', 'paymentMethod', ['PaymentMethod', 'null']],
    ['Invoice', 'referencedInvoice', ['InvoiceReference', 'null']],
    ['Invoice', 'netAmount', ['object']],
    ['Invoice', 'unpaidAmount', ['object']],
    ['Invoice', 'usageBreakdownUrl', ['string', 'null']],
    ['InvoicePosition', 'tax.rate', ['number']],
    // §2.1 and §2.4: customers embed the payment method, subscriptions its short form.
    ['Customer', 'defaultPaymentMethod', ['PaymentMethod', 'null']],
    ['Subscription', 'paymentMethod', ['EmbeddedPaymentMethod', 'null']],
    ['SubscriptionItem', 'measurementValues', ['array']],
    ['SubscriptionItem', 'measurementValues.[].measuredAt', ['string']],
    ['SubscriptionItem', 'currentMeasurementValue', ['EmbeddedMeasurementValue', 'null']],
    ['SubscriptionItem', 'appliedDiscounts', ['array']],
    ['SubscriptionItem', 'appliedDiscounts.[].discount.frequency', ['string']],
    ['SubscriptionItem', 'periods', ['array']],
    ['SubscriptionItem', 'periods.[].contractPeriodCount', ['integer']],
    // Named embeds that may be null say so (nullableRef).
    ['PaymentMethod', 'sepaMandate', ['SepaMandate', 'null']],
    ['Invoice', 'file', ['Media', 'null']],
    ['Customer', 'defaultAddress', ['Address', 'null']],
    ['Subscription', 'invoiceAddress', ['Address', 'null']],
    ['Subscription', 'lastBillingError', ['SubscriptionBillingError', 'null']],
    // §2.3: a tax's rate is a number; a price plan names its charge and product set option.
    ['Tax', 'rate', ['number']],
    ['PricePlan', 'charge', ['string', 'null']],
    ['PricePlan', 'productSetOption', ['string', 'null']],
    // §2.5: transaction amounts are numbers.
    ['Transaction', 'amount', ['number']],
    ['Transaction', 'feeAmount', ['number']],
    // Overdue rules always have an id.
    ['DunningRule', 'id', ['string']],
    // §2.6 leaves the cart's amounts open: decimal strings beside the currency (docs/decisions.md, Response shapes).
    ['CartPrice', 'amountDue', ['string']],
  ])('%s.%s is %j', (schema, path, expected) => {
    expect(kinds(prop(schema, path)).sort()).toEqual([...expected].sort());
  });

  it('shows payment methods with every field of §2.2, the embedded form without referenceId', () => {
    const full = ['id', 'gatewayName', 'type', 'referenceId', 'default', 'enabled', 'status', 'source', 'name', 'data', 'creationDate', 'expirationDate', 'sepaMandate', 'card', 'sepaDebit'];
    expect(Object.keys(schemas.PaymentMethod!.properties)).toEqual(expect.arrayContaining(full));
    expect(Object.keys(schemas.EmbeddedPaymentMethod!.properties)).toEqual(expect.arrayContaining(full.filter((f) => f !== 'referenceId')));
    expect(schemas.EmbeddedPaymentMethod!.properties.referenceId).toBeUndefined();
  });
});

describe('responses carry the spec shapes', () => {
  it('customers, subscriptions, invoices, taxes, price plans and overdue rules, with no full IBAN anywhere', async () => {
    const f = await setup(DEFAULT_NOW);
    const { t, c, customer } = f;
    const seen: ApiResponse[] = [];
    const read = async (path: string) => {
      const res = await get(t, path);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      seen.push(res);
      return res.body;
    };
    await paymentSettings(t, { 'sepa.creditorId': CREDITOR_ID });
    // The customer's first usable method becomes its default.
    const sepa = await sepaMethod(t, customer.id);
    const coupon = await created(post(t, '/coupons', { code: 'PRO10', name: 'Ten off Pro', type: 'percentage', percentage: 10, frequency: 'lifetime', limitedToProducts: [c.pro.id] }));
    const sub = await activeSubscription(f, { items: [item(c.pro, c.proMonthly), item(c.api, c.apiMetered)], coupons: [coupon.code] });
    const apiItem = sub.items.find((i: Json) => i.product.id === c.api.id);
    const proItem = sub.items.find((i: Json) => i.product.id === c.pro.id);
    await setClock(t, '2030-01-15T20:00:00.000Z');
    const events = Array.from({ length: ITEM_MEASUREMENT_VALUES + 2 }, (_, k) => ({ id: `call-${k}`, subscriptionItem: apiItem.id, quantity: String(k + 1), measuredAt: `2030-01-15T1${k}:30:00.000Z` }));
    expect((await ok(post(t, '/subscriptions/measurements', { events }))).accepted).toBe(events.length);

    // §2.1: the customer's default method in full, its IBAN masked, its mandate with the creditor id.
    const fullMethod = await read(`/payment-methods/${sepa.id}`);
    const c1 = await read(`/customers/${customer.id}`);
    expect(c1.defaultPaymentMethod).toEqual(fullMethod);
    expect(c1.defaultPaymentMethod).toMatchObject({
      referenceId: expect.any(String),
      source: 'api',
      data: expect.any(Array),
      creationDate: expect.any(String),
      expirationDate: null,
      sepaMandate: { mandateReference: expect.any(String), creditorId: CREDITOR_ID, type: 'CORE', sequenceType: 'FRST' },
      sepaDebit: { iban: MASKED_IBAN },
    });
    expect((await read(`/customers?limit=5`)).data.find((x: Json) => x.id === customer.id).defaultPaymentMethod).toEqual(fullMethod);

    // §2.4: the subscription's method in the short form; items with usage, discounts and periods.
    const { referenceId: _referenceId, ...short } = fullMethod;
    for (const s of [await read(`/subscriptions/${sub.id}`), (await read(`/subscriptions?customer=${customer.id}`)).data[0]]) {
      expect(s.paymentMethod).toEqual(short);
      const byProduct = (id: string) => s.items.find((i: Json) => i.product.id === id);
      const newest = [...events].reverse().slice(0, ITEM_MEASUREMENT_VALUES);
      expect(byProduct(c.api.id).measurementValues).toEqual(newest.map((e) => ({ id: e.id, measurement: c.apiCalls.id, quantity: e.quantity, measuredAt: e.measuredAt })));
      expect(byProduct(c.api.id).currentMeasurementValue).toEqual({ id: newest[0]!.id, measurement: c.apiCalls.id, quantity: newest[0]!.quantity, measuredAt: newest[0]!.measuredAt });
      expect(byProduct(c.pro.id)).toMatchObject({ measurementValues: [], currentMeasurementValue: null });
      // The coupon is limited to Pro: its item shows it, the API calls do not.
      expect(byProduct(c.pro.id).appliedDiscounts).toEqual(s.appliedDiscounts);
      expect(byProduct(c.pro.id).appliedDiscounts).toMatchObject([{ coupon: { id: coupon.id, code: 'PRO10' }, status: 'active', discount: { type: 'percentage', percentage: 10, frequency: 'lifetime' } }]);
      expect(byProduct(c.api.id).appliedDiscounts).toEqual([]);
      for (const i of s.items) expect(i.periods).toEqual(s.periods);
    }
    expect((await read(`/subscription-items/${proItem.id}`)).appliedDiscounts).toHaveLength(1);

    // §2.5: a billed invoice with its method, a cancellation referring to it, an absolute usage URL.
    await setClock(t, '2030-02-16T10:00:00.000Z');
    const billed = (await read(`/invoices?subscription=${sub.id}`)).data as Json[];
    const withUsage = billed.find((i) => i.usageBreakdownUrl !== null)!;
    expect(withUsage.usageBreakdownUrl).toMatch(new RegExp(`^http://billing\\.test/public/usage-breakdowns/${t.id}/`));
    expect(withUsage.netAmount).toEqual({ amount: expect.stringMatching(/^\d+\.\d\d$/), currencyCode: 'EUR' });
    for (const p of withUsage.positions.filter((x: Json) => x.tax)) expect(typeof p.tax.rate).toBe('number');
    const invoice = await created(api(`/invoices/${withUsage.id}/payment-method`, { token: t.key, body: { paymentMethodId: sepa.id } }));
    expect(invoice.paymentMethod).toEqual(fullMethod);
    const cancelled = await ok(api(`/invoices/${invoice.id}/cancel`, { token: t.key, method: 'POST' }));
    const cancellation = await read(`/invoices/${cancelled.cancellationDocument.id}`);
    expect(cancellation.referencedInvoice).toEqual({
      id: invoice.id,
      type: 'TYPE_INVOICE',
      status: 'STATUS_CANCELLED',
      number: invoice.number,
      currencyCode: 'EUR',
      creationDate: invoice.creationDate,
      finalizationDate: invoice.finalizationDate,
      dueDate: invoice.dueDate,
      netAmount: invoice.netAmount,
      taxAmount: invoice.taxAmount,
      grossAmount: invoice.grossAmount,
    });
    const listed = (await read('/invoices?type=TYPE_CANCEL')).data[0];
    expect(listed.referencedInvoice).toEqual(cancellation.referencedInvoice);
    expect((await read(`/invoices/${invoice.id}`)).paymentMethod).toEqual(fullMethod);

    // §2.3: taxes, price plans; the default overdue rules.
    const tax = await created(post(t, '/taxes', { taxGroup: c.taxGroup.id, countryCode: 'AT', validFrom: '2030-01-01', rate: 20, code: 'AT20' }));
    expect((await read(`/taxes/${tax.id}`)).rate).toBe(20);
    expect(await read(`/price-plans/${c.setupFee.id}`)).toMatchObject({ type: 'one_time', charge: c.setup.id, productSetOption: null });
    expect(await read(`/price-plans/${c.proMonthly.id}`)).toMatchObject({ charge: null, productSetOption: null });
    expect((await read('/dunning/overdue-rules')).data.map((r: Json) => r.id)).toEqual(['default-1', 'default-2', 'default-3']);

    // No reply shows the full IBAN.
    for (const res of seen) expect(JSON.stringify(res.body)).not.toContain(IBAN);
  });

  it("carts: amounts as decimal strings beside their currency, the same for the buyer and the tenant's read", async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    expect(cart.price).toMatchObject({ amountDue: '23.80', netAmount: '20.00', currencyCode: 'EUR', taxes: [{ netAmount: '20.00', taxAmount: '3.80', rate: '19' }] });
    expect(cart.items[0].price).toMatchObject({ currencyCode: 'EUR', totalNetAmount: '20.00', price: { amount: '10.00' } });
    expect((await get(t, `/checkout/carts/${cart.id}`)).body).toEqual(cart);
  });
});
