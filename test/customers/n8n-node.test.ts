import { describe, expect, it } from 'vitest';
import { api, countRows, query } from '../support/api';
import { created, createCustomer, createTenant } from '../support/builders';
import { paymentMethod } from '../subscriptions/builders';
import { createGroup, defineField, VALID_VAT_ID } from './builders';
import { post } from '../support/api';
import { expect2xx, node, qs } from '../support/n8n';
import { backgroundSettled } from '../../src/lib/background';

// The customer requests of the official n8n node (fynnplatform/n8n-nodes-fynn, resource Customer),
// replayed exactly as it sends them (test/support/n8n.ts); the whole node, trigger included, is
// replayed in one workflow by test/compat/n8n-node.test.ts.

describe('the n8n node’s customer operations', () => {
  async function setup() {
    const t = await createTenant();
    const group = await createGroup(t, 'Key Accounts');
    const contact = await created(post(t, '/contact-persons', { firstName: 'Carla', lastName: 'Contact', email: 'carla@seller.example' }));
    const partner = await createCustomer(t, { email: 'partner@agency.example', companyName: 'Agency AG', isPartner: true });
    await defineField(t, 'field1', 'string');
    return { t, group, contact, partner };
  }

  it('Create (every additional field), Find, Update, Get Many with each filter, Update Payment Method, Request OTP, Archive, Delete', async () => {
    const { t, group, contact, partner } = await setup();

    // Create — POST /customers (§3.3, row 7): `email` plus every additional field, all strings.
    const createBody = {
      email: 'max@fynndemo.com',
      firstName: 'Max',
      lastName: 'Mustermann',
      companyName: 'Fynn Demo GmbH',
      phone: '+49 30 123456',
      customerNumber: 'CUSTOMER-001',
      countryCode: 'DE',
      language: 'de',
      timeZone: 'Europe/Berlin',
      currencyCode: 'EUR',
      invoiceEmail: 'billing@fynndemo.com',
      gender: 'male',
      vatId: VALID_VAT_ID,
      datevId: '10001',
      commercialRegisterName: 'Amtsgericht Berlin-Charlottenburg',
      commercialRegisterNumber: 'HRB 12345',
      street: 'Musterstraße',
      houseNumber: '1a',
      zip: '10115',
      city: 'Berlin',
      addition: '3. OG',
      customerGroup: group.id,
      contactPerson: contact.id,
    };
    const create = await node(t, 'POST', '/customers', createBody);
    expect2xx(create);
    expect(create.status).toBe(201);
    const id = create.body.id;
    expect(create.body).toMatchObject({
      email: 'max@fynndemo.com',
      customerNumber: 'CUSTOMER-001',
      ledgerId: '10001',
      datevId: '10001',
      gender: 'male',
      isVatIdValid: true,
      commercialRegisterNumber: 'HRB 12345',
      customerGroup: { id: group.id },
      contactPerson: { id: contact.id },
      defaultInvoiceEmailAddress: { email: 'billing@fynndemo.com', type: 'invoice' },
      defaultAddress: { street: 'Musterstraße', houseNumber: '1a', zip: '10115', city: 'Berlin', addition: '3. OG', countryCode: 'DE' },
    });
    // The older node version sends gender "" by default; the minimal example of the notes.
    expect2xx(await node(t, 'POST', '/customers', { email: 'erika@fynndemo.com', gender: '' }));
    expect2xx(await node(t, 'POST', '/customers', { email: 'moritz@fynndemo.com', firstName: 'Moritz', countryCode: 'DE', language: 'de' }));

    // Find — GET /customers/{id} (row 4).
    const find = await node(t, 'GET', `/customers/${id}`);
    expect2xx(find);
    expect(find.body.id).toBe(id);

    // Update — PUT /customers/{id} (§3.4, row 8): no email, always countryCode/timeZone/language,
    // customFields as n8n's JSON text.
    const update = await node(t, 'PUT', `/customers/${id}`, {
      countryCode: 'AT',
      timeZone: 'Europe/Vienna',
      language: 'en',
      firstName: 'Maximilian',
      gender: 'diverse',
      taxExempt: 'auto',
      datevId: '10002',
      customerGroup: group.id,
      contactPerson: contact.id,
      customFields: '{"field1":"value1"}',
    });
    expect2xx(update);
    expect(update.body).toMatchObject({
      email: 'max@fynndemo.com',
      lastName: 'Mustermann',
      companyName: 'Fynn Demo GmbH',
      countryCode: 'AT',
      timeZone: 'Europe/Vienna',
      language: 'en',
      firstName: 'Maximilian',
      ledgerId: '10002',
      customFields: { field1: 'value1' },
    });
    // Only the always-sent fields; and the json parameter at its default '{}'.
    expect2xx(await node(t, 'PUT', `/customers/${id}`, { countryCode: 'AT', timeZone: 'Europe/Vienna', language: 'en', customFields: '{}' }));
    expect((await node(t, 'GET', `/customers/${id}`)).body.customFields).toEqual({ field1: 'value1' });
    expect2xx(await api(`/customers/${id}/partner`, { token: t.key, method: 'PUT', body: { partner: partner.id } }));

    // Get Many — GET /customers (row 5): limit/page plus each filter the node offers.
    const filters: Record<string, string | boolean>[] = [
      { search: 'Fynn Demo' },
      { customerNumber: 'CUSTOMER-001' },
      { firstName: 'Maximilian' },
      { lastName: 'Mustermann' },
      { companyName: 'Fynn Demo GmbH' },
      { vatId: VALID_VAT_ID },
      { datevId: '10002' },
      { isVatIdValid: true },
      { partner: partner.id },
      { 'emailAddresses[email]': 'max@fynndemo.com' },
      { 'customerGroup[name]': 'Key Accounts' },
    ];
    for (const filter of filters) {
      const list = await node(t, 'GET', `/customers?${qs({ limit: 50, page: 1, ...filter })}`);
      expect2xx(list);
      expect(list.body.data.map((c: any) => c.id), JSON.stringify(filter)).toEqual([id]);
    }
    const notValid = await node(t, 'GET', `/customers?${qs({ limit: 30, page: 1, isVatIdValid: false })}`);
    expect2xx(notValid);
    expect(notValid.body.data.map((c: any) => c.id)).not.toContain(id);

    // Update Payment Method — PATCH /customers/{id}/payment-method (row 11), as application/json.
    const card = await paymentMethod(t, id, 'card');
    const setMethod = await node(t, 'PATCH', `/customers/${id}/payment-method`, { paymentMethodId: card });
    expect2xx(setMethod);
    expect(setMethod.body.defaultPaymentMethod).toMatchObject({ id: card, default: true });

    // Request OTP — POST /public/customer/request-otp (row 12), with the node's Bearer key.
    const otp = await node(t, 'POST', '/public/customer/request-otp', { email: 'max@fynndemo.com' });
    expect2xx(otp);
    expect(otp.body).toEqual({ success: true });
    await backgroundSettled(); // the code is mailed after the answer
    expect(await countRows('outgoing_mails', t, 'AND "to" = ?', 'max@fynndemo.com')).toBe(1);

    // Archive — bodiless PUT /customers/{id}/archive (row 10).
    const archive = await node(t, 'PUT', `/customers/${id}/archive`);
    expect2xx(archive);
    expect(archive.body).toMatchObject({ id, status: 'STATUS_ARCHIVED' });

    // Delete — DELETE /customers/{id} (row 9).
    expect2xx(await node(t, 'DELETE', `/customers/${id}`));
    expect((await node(t, 'GET', `/customers/${id}`)).status).toBe(404);
    expect(await query(t, 'SELECT id FROM payment_methods WHERE id = ?', card)).toEqual([]);
  });
});
