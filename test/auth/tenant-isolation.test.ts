import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { shardNames } from '../../src/db/shards';
import { api, dbOf, shardOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { SETTINGS } from '../documents/builders';
import { CREDITOR_ID, OTHER_IBAN, sepaMethod } from '../payments/builders';
import { camt053 } from '../payments/camt';

/**
 * Tenant isolation over every route in the OpenAPI document: tenant B, holding every permission,
 * tries to read, change and delete each of tenant A's records, and lists every collection. A new
 * route with a path parameter fails this test until it is added to the tables below. B lives on
 * A's shard (only the tenant condition keeps A's rows out) and on the other shard (the routing
 * must not reach A's shard with B's request).
 */
describe('tenant isolation on every route', () => {
  it.each(['the same shard', 'another shard'])('hides every record of tenant A from tenant B on %s', async (where) => {
    const a = await createTenant();
    const aShard = await shardOf(a);
    const b = await createTenant({ shard: shardNames(env).find((s) => (where === 'the same shard' ? s === aShard : s !== aShard)) });
    expect(await shardOf(b) === aShard).toBe(where === 'the same shard');
    const group = (await api('/customer-groups', { token: a.key, body: { name: 'A group' } })).body;
    const contact = (await api('/contact-persons', { token: a.key, body: { firstName: 'Ann', lastName: 'Agent', email: 'ann@a.example' } })).body;
    const field = (await api('/custom-fields', { token: a.key, body: { name: 'segment', type: 'string', resource: 'customer' } })).body;
    const customer = await createCustomer(a, { customerGroup: group.id, contactPerson: contact.id, customFields: { segment: 'A' }, invoiceEmail: 'bill@a.example' });
    const address = (await api(`/customers/${customer.id}/addresses`, { token: a.key, body: { type: 'TYPE_INVOICE', street: 'Secret', city: 'Berlin', zip: '10115' } })).body;
    const email = customer.emailAddresses[1];
    const apiKey = (await api('/api-keys', { token: a.key, body: { permissions: ['customer:read'] } })).body;
    const bCustomer = await createCustomer(b);

    // A's catalogue: one record of each kind, all in use by each other.
    const make = async (path: string, body: unknown) => {
      const res = await api(path, { token: a.key, body });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
      return res.body;
    };
    const family = await make('/product-families', { name: 'A family' });
    const unit = await make('/units', { name: 'A unit', code: 'a-unit' });
    const measurement = await make('/measurements', { unit: unit.id, code: 'a-seats', aggregationType: 'last_value', type: 'recurring' });
    const costCentre = await make('/cost-centres', { name: 'A sales', code: 'A-CC' });
    const reason = await make('/cancellation-reasons', { code: 'a-reason', name: 'A reason' });
    const billingGroup = await make('/billing-groups', { name: 'A group', type: 'custom', customDay: 15 });
    const taxGroup = await make('/tax-groups', { type: 'standard', internalDescription: 'A VAT' });
    const tax = await make('/taxes', { taxGroup: taxGroup.id, countryCode: 'FR', validFrom: '2025-01-01', rate: '5.5', code: 'A-FR' });
    const product = await make('/catalogue/products', {
      name: 'A product',
      number: 'A-P-1',
      type: 'product',
      productFamilies: [family.id],
      measurement: measurement.id,
      taxGroup: taxGroup.id,
      costCentre: costCentre.id,
    });
    const pricePlan = await make('/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '10' }, billingInterval: '1M' });
    const plan = await make('/plans', { family: family.id, code: 'a-plan', name: 'A plan', items: [{ product: product.id, pricePlan: pricePlan.id }] });
    // A frozen clock, so that derived dates (the next possible cancellation of an open-ended
    // subscription is "now") are equal in the two snapshots.
    await api('/test-clock', { method: 'PUT', token: a.key, body: { now: '2026-06-01T08:00:00Z' } });
    const coupon = await make('/coupons', { code: 'A-COUPON', name: 'A coupon', type: 'percentage', percentage: 10, frequency: 'once', limitedToPlans: [plan.id] });
    const feature = await make('/entitlement/features', { code: 'a-sso', name: 'A SSO', type: 'switch' });
    const assignment = await make('/entitlement/feature-assignments', { feature: feature.id, value: 'true', object: 'product', objectId: product.id });
    const draft = await make('/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: pricePlan.id }] });
    const subscription = (await api(`/subscriptions/${draft.id}/activate`, { method: 'PUT', token: a.key, body: {} })).body;
    expect(subscription.status).toBe('active');
    const item = subscription.items[0];
    const invoice = await make('/invoices', { customer: customer.id, positions: [{ name: 'A work', unitPrice: '10.00', taxRate: '19' }] });
    const position = invoice.positions[0];
    const run = (await api('/billing-runs', { token: a.key, method: 'POST' })).body;
    const webhook = await make('/webhooks', { url: 'https://hooks.a.example/billing', events: ['customer.updated'] });
    const checkoutLink = await make('/checkout-links', { slug: 'a-link', items: [{ product: product.id, pricePlan: pricePlan.id }] });
    const cart = (await api(`/public/checkout/links/${a.id}/a-link/cart`, { method: 'POST' })).body;
    expect(cart.id).toEqual(expect.any(String));
    const offerTemplate = await make('/offer-templates', { name: 'A terms', sections: ['<p>A terms</p>'] });
    const offerDraft = await make('/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: pricePlan.id }] });
    const offer = await make('/offers', { customer: customer.id, name: 'A offer', subscription: { items: [{ product: product.id, pricePlan: pricePlan.id }] } });
    const offerRecipient = (await make(`/offers/${offer.id}/recipients`, { email: 'signer@a.example', role: 'sign' })).recipients[0];
    const deliveryId = `delivery-${Date.now()}`;
    await (await dbOf(a)).prepare(
      `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_type, status, attempts, created_at) VALUES (?, ?, ?, 'e', 'customer.updated', 'failed', 13, ?)`,
    )
      .bind(deliveryId, a.id, webhook.id, new Date().toISOString())
      .run();
    expect(run.id).toEqual(expect.any(String));

    // A's money: a SEPA mandate, an invoice collected in a SEPA file, the statement line that paid
    // it with its assignment, and a linked bank account.
    await api('/settings', { token: a.key, method: 'PATCH', body: { settings: [{ key: 'sepa.creditorId', value: CREDITOR_ID }] } });
    await api('/settings/documents', { token: a.key, method: 'PUT', body: SETTINGS });
    const mandate = await sepaMethod(a, customer.id, { default: true, sepaDebit: { iban: OTHER_IBAN, accountHolder: 'Ann Agent' } });
    const debited = await make('/invoices', { customer: customer.id, positions: [{ name: 'A debit', unitPrice: '10.00', taxRate: '19' }] });
    expect((await api(`/invoices/${debited.id}/finalize`, { token: a.key, method: 'POST' })).status).toBe(201);
    const sepaFile = await make('/sepa-xml', { type: 'direct_debit' });
    const collection = (await api(`/sepa-xml/${sepaFile.id}`, { token: a.key })).body.transactions[0];
    const statement = camt053('DE89370400440532013000', 'A-STMT', [
      { ref: 'A-1', amount: '11.90', credit: true, bookingDate: '2026-06-03', details: [{ endToEndId: collection.endToEndId, amount: '11.90' }] },
      { ref: 'A-2', amount: '5.00', credit: true, bookingDate: '2026-06-03', details: [{ name: 'Unknown', iban: OTHER_IBAN, remittance: 'A donation' }] },
    ]);
    expect((await api('/payment/bank-account-transactions/import', { token: a.key, method: 'POST', rawBody: statement, contentType: 'application/xml' })).status).toBe(201);
    const bankLines = (await api('/payment/bank-account-transactions', { token: a.key })).body.data as { id: string; status: string }[];
    const bookedLine = bankLines.find((l) => l.status === 'STATUS_BOOKED')!;
    const openLine = bankLines.find((l) => l.status !== 'STATUS_BOOKED')!;
    const bankAssignment = (await api(`/payment/bank-account-transaction-assignments?bankAccountTransaction=${bookedLine.id}`, { token: a.key })).body.data[0];
    const bankAccount = await make('/open-banking-accounts', { iban: 'DE89370400440532013000' });
    // A's dunning: a rule, and a reminder of the debited invoice.
    const dunningRule = await make('/dunning/overdue-rules', { level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7 });
    const dunningDocument = `dunning-${Date.now()}`;
    await (await dbOf(a)).prepare(
      `INSERT INTO dunning_documents (id, tenant_id, customer_id, invoice_id, level, type, status, number, number_seq, language, recipient, title, document_date, due_date, currency_code, open_amount, amount_due, positions, created_at, updated_at)
       VALUES (?, ?, ?, ?, 1, 'reminder', 'open', 'ER-A-1', 1, 'de', '{"name":"A"}', 'Reminder', ?, ?, 'EUR', 1190, 1190, '[]', ?, ?)`,
    )
      .bind(dunningDocument, a.id, customer.id, debited.id, '2026-06-01T00:00:00.000Z', '2026-06-08T00:00:00.000Z', '2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z')
      .run();

    // B's own catalogue, so that the sample bodies below are valid for B: the only reason to refuse them is A's id.
    const makeB = async (path: string, body: unknown) => {
      const res = await api(path, { token: b.key, body });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
      return res.body;
    };
    const bFamily = await makeB('/product-families', { name: 'B family' });
    const bUnit = await makeB('/units', { name: 'B unit', code: 'b-unit' });
    const bMeasurement = await makeB('/measurements', { unit: bUnit.id, code: 'b-seats', aggregationType: 'last_value', type: 'recurring' });
    const bTaxGroup = await makeB('/tax-groups', { type: 'standard' });
    const bProduct = await makeB('/catalogue/products', { name: 'B product', type: 'product', productFamilies: [bFamily.id], measurement: bMeasurement.id, taxGroup: bTaxGroup.id });
    const bPricePlan = await makeB('/price-plans', { product: bProduct.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '1' }, billingInterval: '1M' });
    const bProductBody = { name: 'Stolen', type: 'product', productFamilies: [bFamily.id], measurement: bMeasurement.id, taxGroup: bTaxGroup.id };
    const bOffer = await makeB('/offers', { customer: bCustomer.id });

    const ids: Record<string, Record<string, string>> = {
      '/customers/{id}': { id: customer.id },
      '/customers/{id}/archive': { id: customer.id },
      '/customers/{id}/unarchive': { id: customer.id },
      '/customers/{id}/partner': { id: customer.id },
      '/customers/{id}/settings/billing': { id: customer.id },
      '/customers/{id}/authenticate': { id: customer.id },
      '/customers/{id}/payment-method': { id: customer.id },
      '/customers/{id}/addresses': { id: customer.id },
      '/customers/{id}/addresses/{addressId}': { id: customer.id, addressId: address.id },
      '/customers/{id}/email-addresses': { id: customer.id },
      '/customers/{id}/email-addresses/{emailId}': { id: customer.id, emailId: email.id },
      '/customer-groups/{id}': { id: group.id },
      '/contact-persons/{id}': { id: contact.id },
      '/custom-fields/{id}': { id: field.id },
      '/api-keys/{id}': { id: apiKey.id },
      '/product-families/{id}': { id: family.id },
      '/units/{id}': { id: unit.id },
      '/measurements/{id}': { id: measurement.id },
      '/cost-centres/{id}': { id: costCentre.id },
      '/cancellation-reasons/{id}': { id: reason.id },
      '/billing-groups/{id}': { id: billingGroup.id },
      '/tax-groups/{id}': { id: taxGroup.id },
      '/tax-groups/{id}/rate': { id: taxGroup.id },
      '/taxes/{id}': { id: tax.id },
      '/catalogue/products/{id}': { id: product.id },
      '/catalogue/products/{id}/archive': { id: product.id },
      '/catalogue/products/{id}/unarchive': { id: product.id },
      '/price-plans/{id}': { id: pricePlan.id },
      '/price-plans/{id}/archive': { id: pricePlan.id },
      '/plans/{id}': { id: plan.id },
      '/plans/{id}/activate': { id: plan.id },
      '/plans/{id}/deactivate': { id: plan.id },
      '/plans/{id}/archive': { id: plan.id },
      '/coupons/{id}': { id: coupon.id },
      '/coupons/{id}/toggle': { id: coupon.id },
      '/entitlement/features/{id}': { id: feature.id },
      '/entitlement/feature-assignments/{id}': { id: assignment.id },
      '/customers/{id}/entitlements': { id: customer.id },
      '/invoices/{id}': { id: invoice.id },
      '/invoices/{id}/position-items': { id: invoice.id },
      ...Object.fromEntries(
        ['finalize', 'approve', 'payments', 'cancel', 'credit', 'duplicate', 'close', 'dunning', 'note', 'address', 'payment-method', 'resend', 'comments', 'preview', 'download-link'].map(
          (op) => [`/invoices/{id}/${op}`, { id: invoice.id }],
        ),
      ),
      '/invoice-position-items/{id}': { id: position.id },
      '/billing-runs/{id}': { id: run.id },
      '/webhooks/{id}': { id: webhook.id },
      '/checkout-links/{id}': { id: checkoutLink.id },
      '/checkout/carts/{id}': { id: cart.id },
      '/checkout-links/{id}/enable': { id: checkoutLink.id },
      '/checkout-links/{id}/disable': { id: checkoutLink.id },
      '/offer-templates/{id}': { id: offerTemplate.id },
      ...Object.fromEntries(['', '/archive', '/send', '/cancel-signing', '/download-link', '/recipients'].map((suffix) => [`/offers/{id}${suffix}`, { id: offer.id }])),
      '/offers/{id}/recipients/{recipientId}': { id: offer.id, recipientId: offerRecipient.id },
      '/offer-recipients/{id}/role': { id: offerRecipient.id },
      '/subscriptions/{id}/offers': { id: offerDraft.id },
      '/webhooks/{id}/rotate-secret': { id: webhook.id },
      '/webhooks/{id}/deliveries': { id: webhook.id },
      '/webhook-deliveries/{id}/redeliver': { id: deliveryId },
      '/customers/{id}/payment-methods': { id: customer.id },
      '/payment-methods/{id}': { id: mandate.id },
      '/payment-methods/{id}/revoke': { id: mandate.id },
      '/transactions/{id}': { id: collection.id },
      '/transactions/{id}/refund': { id: collection.id },
      '/sepa-xml/{id}': { id: sepaFile.id },
      '/sepa-xml/{id}/download-link': { id: sepaFile.id },
      '/payment/bank-account-transactions/{id}': { id: bookedLine.id },
      '/payment/bank-account-transactions/{id}/assign-invoices': { id: openLine.id },
      '/payment/bank-account-transactions/{id}/ignore': { id: openLine.id },
      '/payment/bank-account-transaction-assignments/{id}': { id: bankAssignment.id },
      '/open-banking-accounts/{id}': { id: bankAccount.id },
      '/open-banking-accounts/{id}/sync': { id: bankAccount.id },
      '/open-banking-accounts/{id}/fake-transactions': { id: bankAccount.id },
      '/dunning/overdue-rules/{id}': { id: dunningRule.id },
      '/dunning/documents/{id}': { id: dunningDocument },
      '/dunning/documents/{id}/cancel': { id: dunningDocument },
      '/subscription-items/{id}': { id: item.id },
      '/subscription-items/{id}/quantity': { id: item.id },
      '/subscription-items/{id}/cancel': { id: item.id },
      '/subscription-items/{id}/price-plan': { id: item.id },
      '/subscription-items/{id}/measurement-values': { id: item.id },
      '/subscription-items/{id}/current-measurement-value': { id: item.id },
      ...Object.fromEntries(
        [
          '',
          '/activate',
          '/pause',
          '/resume',
          '/cancel',
          '/revoke-cancellation',
          '/terminate',
          '/extend-trial',
          '/revoke-trial',
          '/invoice-address',
          '/payment-method',
          '/products',
          '/comments',
          '/estimated-amount',
          '/estimated-invoice',
          '/entitlements',
        ].map((suffix) => [`/subscriptions/{id}${suffix}`, { id: subscription.id }]),
      ),
    };
    // Routes with required query parameters: a valid query, so the id is the only thing wrong.
    const queries: Record<string, string> = {
      '/tax-groups/{id}/rate': 'customerCountry=FR&date=2026-01-01',
      '/customers/{id}/entitlements': 'feature=a-sso',
      '/exchange-rates': 'date=2026-01-01',
    };
    // B's own parent with A's child id must not reach A's child either.
    const crossParent: Record<string, Record<string, string>> = {
      '/customers/{id}/addresses/{addressId}': { id: bCustomer.id, addressId: address.id },
      '/customers/{id}/email-addresses/{emailId}': { id: bCustomer.id, emailId: email.id },
      '/offers/{id}/recipients/{recipientId}': { id: bOffer.id, recipientId: offerRecipient.id },
    };
    const bodies: Record<string, unknown> = {
      'put /customers/{id}': { email: 'taken@b.example', countryCode: 'DE' },
      'patch /customers/{id}': { firstName: 'Mallory' },
      'put /customers/{id}/partner': { partner: null },
      'patch /customers/{id}/settings/billing': { requiresManualInvoiceApproval: true },
      'post /customers/{id}/addresses': { type: 'TYPE_INVOICE', street: 'Evil', city: 'Town', zip: '66666' },
      'put /customers/{id}/addresses/{addressId}': { type: 'TYPE_INVOICE', street: 'Evil', city: 'Town', zip: '66666' },
      'post /customers/{id}/email-addresses': { email: 'evil@b.example', type: 'invoice' },
      'put /customers/{id}/email-addresses/{emailId}': { email: 'evil@b.example', type: 'invoice' },
      'put /customer-groups/{id}': { name: 'Stolen' },
      'put /contact-persons/{id}': { firstName: 'M', lastName: 'M', email: 'm@b.example' },
      'put /custom-fields/{id}': { name: 'stolen', type: 'string', resource: 'customer' },
      'put /product-families/{id}': { name: 'Stolen' },
      'patch /product-families/{id}': { name: 'Stolen' },
      'put /units/{id}': { name: 'Stolen', code: 'stolen' },
      'patch /units/{id}': { name: 'Stolen' },
      'put /measurements/{id}': { unit: bUnit.id, code: 'stolen', aggregationType: 'last_value', type: 'recurring' },
      'patch /measurements/{id}': { description: 'Stolen' },
      'put /cost-centres/{id}': { name: 'Stolen', code: 'STOLEN' },
      'patch /cost-centres/{id}': { name: 'Stolen' },
      'put /cancellation-reasons/{id}': { code: 'stolen', name: 'Stolen' },
      'patch /cancellation-reasons/{id}': { name: 'Stolen' },
      'put /billing-groups/{id}': { name: 'Stolen', type: 'start_of_month' },
      'patch /billing-groups/{id}': { name: 'Stolen' },
      'put /tax-groups/{id}': { type: 'reduced' },
      'patch /tax-groups/{id}': { internalDescription: 'Stolen' },
      'put /taxes/{id}': { taxGroup: bTaxGroup.id, countryCode: 'FR', validFrom: '2030-01-01', rate: '0', code: 'STOLEN' },
      'patch /taxes/{id}': { rate: '0' },
      'put /catalogue/products/{id}': bProductBody,
      'patch /catalogue/products/{id}': { name: 'Stolen' },
      'put /price-plans/{id}': { product: bProduct.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '0' }, billingInterval: '1M' },
      'patch /price-plans/{id}': { internalName: 'Stolen' },
      'put /plans/{id}': { family: bFamily.id, code: 'stolen', name: 'Stolen', items: [{ product: bProduct.id, pricePlan: bPricePlan.id }] },
      'patch /plans/{id}': { name: 'Stolen' },
      'put /coupons/{id}': { code: 'STOLEN', name: 'Stolen', type: 'percentage', percentage: 100, frequency: 'lifetime' },
      'patch /coupons/{id}': { percentage: 100 },
      'put /coupons/{id}/toggle': { isEnabled: false },
      'put /entitlement/features/{id}': { code: 'a-sso', name: 'Stolen', type: 'switch' },
      'patch /entitlement/features/{id}': { name: 'Stolen' },
      'put /subscriptions/{id}': { customer: bCustomer.id, items: [{ product: bProduct.id, pricePlan: bPricePlan.id }] },
      'put /subscriptions/{id}/cancel': { cancellationDateType: 'immediate' },
      'put /subscriptions/{id}/extend-trial': { trialDays: 5 },
      'put /subscriptions/{id}/invoice-address': { invoiceAddress: null },
      'patch /subscriptions/{id}/payment-method': { paymentMethodId: null },
      'patch /customers/{id}/payment-method': { paymentMethodId: 'stolen' },
      'put /subscriptions/{id}/payment-method': { paymentMethodId: null },
      'post /subscriptions/{id}/products': { products: [{ product: bProduct.id, pricePlan: bPricePlan.id }] },
      'post /subscriptions/{id}/comments': { text: 'Stolen' },
      'put /subscription-items/{id}': { name: 'Stolen' },
      'put /invoices/{id}': { customer: bCustomer.id, positions: [] },
      'post /invoices/{id}/position-items': { positions: [{ name: 'Stolen', unitPrice: '1', taxRate: '19' }] },
      'put /invoice-position-items/{id}': { name: 'Stolen', unitPrice: '1', taxRate: '19' },
      'post /invoices/{id}/payments': { amount: '1.00', paymentDate: '2026-01-01T00:00:00Z' },
      'post /invoices/{id}/credit': { positions: [{ name: 'Stolen', unitPrice: '1', taxRate: '19' }] },
      'put /invoices/{id}/dunning': { dunningDisabled: true },
      'put /invoices/{id}/note': { internalNote: 'Stolen' },
      'put /invoices/{id}/address': { address: null },
      'post /invoices/{id}/address': { address: null },
      'post /invoices/{id}/payment-method': { paymentMethod: null },
      'post /invoices/{id}/comments': { text: 'Stolen' },
      'put /webhooks/{id}': { url: 'https://evil.example/x', events: ['*'] },
      'put /checkout-links/{id}': { slug: 'stolen', items: [{ product: bProduct.id, pricePlan: bPricePlan.id }] },
      'patch /checkout-links/{id}': { slug: 'stolen' },
      'put /offer-templates/{id}': { name: 'Stolen' },
      'patch /offer-templates/{id}': { name: 'Stolen' },
      'put /offers/{id}': { name: 'Stolen' },
      'post /offers/{id}/recipients': { email: 'evil@b.example', role: 'sign' },
      'put /offer-recipients/{id}/role': { role: 'read' },
      'post /subscriptions/{id}/offers': { title: 'Stolen' },
      'patch /webhooks/{id}': { url: 'https://evil.example/x' },
      'put /subscription-items/{id}/quantity': { quantity: '5' },
      'put /subscription-items/{id}/price-plan': { pricePlan: bPricePlan.id },
      'patch /payment-methods/{id}': { name: 'Stolen' },
      'put /payment/bank-account-transactions/{id}/assign-invoices': { invoiceIds: [debited.id] },
      'post /open-banking-accounts/{id}/fake-transactions': { transactions: [{ bookingDate: '2026-06-01', amount: '1.00', currency: 'EUR' }] },
      'put /dunning/overdue-rules/{id}': { level: 1, type: 'reminder', daysOverdue: 1, dueInDays: 1 },
      'patch /dunning/overdue-rules/{id}': { daysOverdue: 1 },
      'put /dunning/documents/{id}/cancel': { reason: 'Stolen' },
    };

    const snapshot = async () => ({
      customer: (await api(`/customers/${customer.id}`, { token: a.key })).body,
      group: (await api(`/customer-groups/${group.id}`, { token: a.key })).body,
      contact: (await api(`/contact-persons/${contact.id}`, { token: a.key })).body,
      field: (await api(`/custom-fields/${field.id}`, { token: a.key })).body,
      billing: (await api(`/customers/${customer.id}/settings/billing`, { token: a.key })).body,
      keyWorks: (await api('/customers', { token: apiKey.key })).status,
      family: (await api(`/product-families/${family.id}`, { token: a.key })).body,
      unit: (await api(`/units/${unit.id}`, { token: a.key })).body,
      measurement: (await api(`/measurements/${measurement.id}`, { token: a.key })).body,
      costCentre: (await api(`/cost-centres/${costCentre.id}`, { token: a.key })).body,
      reason: (await api(`/cancellation-reasons/${reason.id}`, { token: a.key })).body,
      billingGroup: (await api(`/billing-groups/${billingGroup.id}`, { token: a.key })).body,
      taxGroup: (await api(`/tax-groups/${taxGroup.id}`, { token: a.key })).body,
      tax: (await api(`/taxes/${tax.id}`, { token: a.key })).body,
      rate: (await api(`/tax-groups/${taxGroup.id}/rate?customerCountry=FR&date=2026-01-01`, { token: a.key })).body,
      product: (await api(`/catalogue/products/${product.id}`, { token: a.key })).body,
      pricePlan: (await api(`/price-plans/${pricePlan.id}`, { token: a.key })).body,
      plan: (await api(`/plans/${plan.id}`, { token: a.key })).body,
      coupon: (await api(`/coupons/${coupon.id}`, { token: a.key })).body,
      feature: (await api(`/entitlement/features/${feature.id}`, { token: a.key })).body,
      assignment: (await api(`/entitlement/feature-assignments/${assignment.id}`, { token: a.key })).body,
      subscription: (await api(`/subscriptions/${subscription.id}`, { token: a.key })).body,
      comments: (await api(`/subscriptions/${subscription.id}/comments`, { token: a.key })).body,
      entitled: (await api(`/customers/${customer.id}/entitlements?feature=a-sso`, { token: a.key })).body,
      invoice: (await api(`/invoices/${invoice.id}`, { token: a.key })).body,
      webhook: (await api(`/webhooks/${webhook.id}`, { token: a.key })).body,
      checkoutLink: (await api(`/checkout-links/${checkoutLink.id}`, { token: a.key })).body,
      offerTemplate: (await api(`/offer-templates/${offerTemplate.id}`, { token: a.key })).body,
      offer: (await api(`/offers/${offer.id}`, { token: a.key })).body,
      offerDraft: (await api(`/subscriptions/${offerDraft.id}`, { token: a.key })).body,
      mandate: (await api(`/payment-methods/${mandate.id}`, { token: a.key })).body,
      collection: (await api(`/transactions/${collection.id}`, { token: a.key })).body,
      sepaFile: (await api(`/sepa-xml/${sepaFile.id}`, { token: a.key })).body,
      bankLines: (await api('/payment/bank-account-transactions', { token: a.key })).body,
      bankAssignment: (await api(`/payment/bank-account-transaction-assignments/${bankAssignment.id}`, { token: a.key })).body,
      bankAccount: (await api(`/open-banking-accounts/${bankAccount.id}`, { token: a.key })).body,
      dunningRule: (await api(`/dunning/overdue-rules/${dunningRule.id}`, { token: a.key })).body,
      dunningDocument: (await api(`/dunning/documents/${dunningDocument}`, { token: a.key })).body,
    });
    const before = await snapshot();
    // Every catalogue record of A is there to be compared (a 404 in the snapshot would hide a deletion).
    const catalogue = [before.family, before.unit, before.measurement, before.costCentre, before.reason, before.billingGroup, before.taxGroup, before.tax, before.product, before.pricePlan, before.plan, before.coupon];
    expect(catalogue.map((r) => r.id)).toEqual([family, unit, measurement, costCentre, reason, billingGroup, taxGroup, tax, product, pricePlan, plan, coupon].map((r) => r.id));
    expect(before.rate).toMatchObject({ rate: '5.5', taxId: tax.id });
    const aIds = [
      customer.id,
      group.id,
      contact.id,
      field.id,
      address.id,
      email.id,
      apiKey.id,
      family.id,
      unit.id,
      measurement.id,
      costCentre.id,
      reason.id,
      billingGroup.id,
      taxGroup.id,
      tax.id,
      product.id,
      pricePlan.id,
      plan.id,
      coupon.id,
      feature.id,
      assignment.id,
      subscription.id,
      item.id,
      invoice.id,
      position.id,
      run.id,
      webhook.id,
      checkoutLink.id,
      offerTemplate.id,
      offer.id,
      offer.subscription.id,
      offerRecipient.id,
      offerDraft.id,
      deliveryId,
      mandate.id,
      debited.id,
      collection.id,
      dunningRule.id,
      dunningDocument,
      sepaFile.id,
      bookedLine.id,
      openLine.id,
      bankAssignment.id,
      bankAccount.id,
    ];

    // Paths whose parameter names a kind of thing, not a record: each tenant has its own under the
    // same name (B's gateway settings are B's), so there is no A record to reach.
    const notRecords = new Set(['/settings/gateways/{gateway}']);
    const doc = (await api('/openapi.json')).body;
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op['x-permission'] === 'public' || op['x-permission'] === 'admin' || notRecords.has(path)) continue;
        const label = `${method.toUpperCase()} ${path}`;
        if (path.includes('{')) {
          // ids[path] is checked even when missing (a filter would skip it and let a new route through).
          for (const params of [ids[path], ...(crossParent[path] ? [crossParent[path]] : [])]) {
            expect(params, `no ids for ${path}: add the route to the isolation tables`).toBeDefined();
            const query = queries[path];
            const url = path.replace(/\{(\w+)\}/g, (_, name: string) => params![name]!) + (query ? `?${query}` : '');
            const needsBody = Boolean(op.requestBody?.required);
            if (needsBody) expect(bodies[`${method} ${path}`], `no sample body for ${label}`).toBeDefined();
            const res = await api(url, { method: method.toUpperCase(), token: b.key, body: needsBody ? bodies[`${method} ${path}`] : undefined });
            expect(res.status, label).toBe(404);
            checked++;
          }
        } else if (method === 'get') {
          const res = await api(queries[path] ? `${path}?${queries[path]}` : path, { token: b.key });
          expect(res.status, label).toBe(200);
          const text = JSON.stringify(res.body);
          for (const id of aIds) expect(text, `${label} leaks ${id}`).not.toContain(id);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(25);
    expect(await snapshot()).toEqual(before);
    // B's search cannot find A's customer by e-mail or number either.
    const search = await api(`/customers?search=${encodeURIComponent(customer.customerNumber)}&email=${encodeURIComponent(customer.email)}`, { token: b.key });
    expect(search.body.data).toEqual([]);
  });
});
