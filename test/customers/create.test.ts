import { describe, expect, it } from 'vitest';
import { api, countRows, expect422, expectProblem, expectStatus, get, patch, post, unique, violations, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, keyWith, setClock } from '../support/builders';
import { baseBody, createGroup, defineField, normalized, text, UNREGISTERED_VAT_ID, VALID_VAT_ID } from './builders';

// POST /customers (spec §2.1): every field, defaults, numbering, validation, uniqueness, ledger ids
// and idempotent creation. Storage is shared by every test file, so every test works in a fresh
// tenant of its own.

async function setSettings(t: TestTenant, settings: { key: string; value: unknown }[]) {
  const res = await patch(t, '/settings', { settings });
  expectStatus(res, 200);
  return res.body;
}

async function createContact(t: TestTenant) {
  return created(
    post(t, '/contact-persons', { firstName: 'Carla', lastName: 'Contact', email: 'carla@seller.example', avatar: 'https://img.example/carla.png' }),
  );
}

describe('POST /customers', () => {
  it('creates a customer from every body field and returns the full representation', async () => {
    const t = await createTenant();
    await setClock(t, '2030-05-01T08:00:00.000Z');
    const group = await createGroup(t);
    const contact = await createContact(t);
    await defineField(t, 'segment', 'select', { options: ['smb', 'enterprise'] });
    await defineField(t, 'score', 'number');
    await defineField(t, 'vip', 'boolean');
    await defineField(t, 'since', 'date');
    await defineField(t, 'note', 'string');

    const invoiceAddress = {
      street: 'Rechnungsweg',
      houseNumber: '1',
      zip: '80331',
      city: 'München',
      addition: 'Buchhaltung',
      countryCode: 'AT',
      companyName: 'Berg Holding',
      salutation: 'Firma',
      firstName: 'Bea',
      lastName: 'Buchhalter',
      vatId: VALID_VAT_ID,
      costCentre: 'CC-9',
    };
    const body = {
      countryCode: 'DE',
      email: 'anna.berg@example.com',
      currencyCode: 'CHF',
      customerGroup: group.id,
      contactPerson: contact.id,
      timeZone: 'Europe/Vienna',
      firstName: 'Anna',
      lastName: 'Berg',
      language: 'en',
      invoiceEmail: 'invoices@berg.example',
      ledgerId: 'DEB-4711',
      gender: 'female',
      vatId: VALID_VAT_ID,
      companyName: 'Berg GmbH',
      phone: '+49 30 1234567',
      commercialRegisterName: 'Amtsgericht Charlottenburg',
      commercialRegisterNumber: 'HRB 123456',
      street: 'Hauptstraße',
      houseNumber: '12a',
      zip: '10115',
      city: 'Berlin',
      addition: 'Hinterhaus',
      invoiceAddress,
      taxExempt: 'exempt',
      customFields: { segment: 'enterprise', score: 7.5, vip: true, since: '2024-02-29', note: 'prefers e-mail' },
    };

    const res = await post(t, '/customers', body);
    expectStatus(res, 201);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const c = res.body;
    expect(c).toMatchObject({
      id: expect.any(String),
      customerNumber: 'C-00001',
      email: 'anna.berg@example.com',
      countryCode: 'DE',
      timeZone: 'Europe/Vienna',
      firstName: 'Anna',
      lastName: 'Berg',
      currencyCode: 'CHF',
      companyName: 'Berg GmbH',
      vatId: VALID_VAT_ID,
      isVatIdValid: true,
      taxExempt: 'exempt',
      ledgerId: 'DEB-4711',
      commercialRegisterName: 'Amtsgericht Charlottenburg',
      commercialRegisterNumber: 'HRB 123456',
      status: 'STATUS_ACTIVE',
      gender: 'female',
      phone: '+49 30 1234567',
      language: 'en',
      totalTurnOverRank: null,
      createdAt: '2030-05-01T08:00:00.000Z',
      customerGroup: { id: group.id, name: 'Key accounts', description: 'Our largest customers' },
      contactPerson: { id: contact.id, firstName: 'Carla', lastName: 'Contact', email: 'carla@seller.example', avatar: 'https://img.example/carla.png' },
      customFields: { segment: 'enterprise', score: 7.5, vip: true, since: '2024-02-29', note: 'prefers e-mail' },
      businessCustomer: true,
      defaultPaymentMethod: null,
      isPartner: false,
      partner: null,
    });

    // The address fields of the body form the default address; invoiceAddress the invoice address.
    expect(c.addresses).toHaveLength(2);
    expect(c.defaultAddress).toMatchObject({
      id: expect.any(String),
      type: 'TYPE_DEFAULT',
      default: true,
      status: 'active',
      street: 'Hauptstraße',
      houseNumber: '12a',
      zip: '10115',
      city: 'Berlin',
      addition: 'Hinterhaus',
      countryCode: 'DE',
    });
    expect(c.defaultInvoiceAddress).toMatchObject({ id: expect.any(String), type: 'TYPE_INVOICE', default: true, status: 'active', ...invoiceAddress });
    expect(c.defaultInvoiceAddress.id).not.toBe(c.defaultAddress.id);
    expect(c.addresses).toContainEqual(c.defaultAddress);
    expect(c.addresses).toContainEqual(c.defaultInvoiceAddress);

    expect(c.emailAddresses).toHaveLength(2);
    expect(c.defaultEmailAddress).toMatchObject({ id: expect.any(String), email: 'anna.berg@example.com', type: 'default', default: true });
    expect(c.defaultInvoiceEmailAddress).toMatchObject({ id: expect.any(String), email: 'invoices@berg.example', type: 'invoice', default: true });
    expect(c.emailAddresses).toContainEqual(c.defaultEmailAddress);
    expect(c.emailAddresses).toContainEqual(c.defaultInvoiceEmailAddress);

    // What was returned is what was stored.
    const read = await get(t, `/customers/${c.id}`);
    expectStatus(read, 200);
    expect(normalized(read.body)).toEqual(normalized(c));
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(2);
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(2);
  });

  it('fills the defaults for a minimal body', async () => {
    const t = await createTenant();
    const res = await post(t, '/customers', { email: 'min@example.com', countryCode: 'FR' });
    expectStatus(res, 201);
    const c = res.body;
    expect(c).toMatchObject({
      customerNumber: 'C-00001',
      email: 'min@example.com',
      countryCode: 'FR',
      timeZone: 'Europe/Berlin',
      language: 'de',
      taxExempt: 'auto',
      status: 'STATUS_ACTIVE',
      currencyCode: null,
      firstName: null,
      lastName: null,
      companyName: null,
      vatId: null,
      isVatIdValid: false,
      ledgerId: null,
      phone: null,
      gender: null,
      customerGroup: null,
      contactPerson: null,
      customFields: null,
      businessCustomer: false,
      isPartner: false,
      partner: null,
    });
    // Address fields are empty strings when missing; the country comes from the customer.
    expect(c.addresses).toHaveLength(1);
    expect(c.defaultAddress).toMatchObject({ type: 'TYPE_DEFAULT', default: true, street: '', houseNumber: '', zip: '', city: '', addition: '', countryCode: 'FR' });
    // Without an invoice address / invoice e-mail, billing falls back to the defaults.
    expect(c.defaultInvoiceAddress).toEqual(c.defaultAddress);
    expect(c.emailAddresses).toEqual([c.defaultEmailAddress]);
    expect(c.defaultInvoiceEmailAddress).toEqual(c.defaultEmailAddress);
  });

  it('treats an empty currencyCode as "tenant default"', async () => {
    const t = await createTenant();
    const res = await post(t, '/customers', baseBody({ currencyCode: '' }));
    expectStatus(res, 201);
    expect(res.body.currencyCode).toBeNull();
  });

  it('numbers customers C-00001, C-00002, … separately in every tenant', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const numbersA = [];
    for (let i = 0; i < 3; i++) numbersA.push((await createCustomer(a)).customerNumber);
    const firstB = await createCustomer(b);
    expect(numbersA).toEqual(['C-00001', 'C-00002', 'C-00003']);
    expect(firstB.customerNumber).toBe('C-00001');
  });

  it('hands out distinct numbers to concurrent creations', async () => {
    const t = await createTenant();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(t, '/customers', baseBody({ email: `par${i}@example.com` }))));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const numbers = results.map((r) => r.body.customerNumber);
    expect(new Set(numbers).size).toBe(10);
    for (const n of numbers) expect(n).toMatch(/^C-\d{5}$/);
  });

  it('uses a customerNumber given by hand and skips it when generating', async () => {
    const t = await createTenant();
    const manual = await createCustomer(t, { customerNumber: 'C-00001' });
    expect(manual.customerNumber).toBe('C-00001');
    const generated = await createCustomer(t);
    expect(generated.customerNumber).toBe('C-00002');
  });

  it('follows the customer.numberFormat setting', async () => {
    const t = await createTenant();
    await setSettings(t, [{ key: 'customer.numberFormat', value: 'K-{number:3}' }]);
    expect((await createCustomer(t)).customerNumber).toBe('K-001');
    expect((await createCustomer(t)).customerNumber).toBe('K-002');
  });

  it.each([
    { name: 'no credentials', token: null, permissions: null, status: 401 },
    { name: 'an unknown key', token: 'sk_test_not_a_key', permissions: null, status: 401 },
    { name: 'a key without customer:write', token: null, permissions: ['customer:read'], status: 403 },
    { name: 'a key for another resource', token: null, permissions: ['customer-group:write'], status: 403 },
  ])('refuses $name', async ({ token, permissions, status }) => {
    const t = await createTenant();
    const key = permissions ? await keyWith(t, permissions) : token;
    const res = await api('/customers', { token: key, body: baseBody() });
    expectProblem(res, status);
    expect(await countRows('customers', t)).toBe(0);
  });

  it('lets a customer:read key read but not change (403)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const key = await keyWith(t, ['customer:read']);
    expectStatus(await api(`/customers/${c.id}`, { token: key }), 200);
    expectStatus(await api('/customers', { token: key }), 200);
    expectProblem(await api(`/customers/${c.id}`, { token: key, method: 'PATCH', body: { firstName: 'Berta' } }), 403);
    expectProblem(await api(`/customers/${c.id}/archive`, { token: key, method: 'PUT' }), 403);
    expectProblem(await api(`/customers/${c.id}`, { token: key, method: 'DELETE' }), 403);
    expect((await get(t, `/customers/${c.id}`)).body).toMatchObject({ firstName: 'Anna', status: 'STATUS_ACTIVE' });
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });
});

describe('POST /customers validation', () => {
  const lengthFields = ['firstName', 'lastName', 'companyName', 'phone', 'ledgerId', 'customerNumber', 'street', 'zip', 'city', 'addition'];

  const cases: { name: string; body: Record<string, unknown>; path: string; code?: string }[] = [
    ...lengthFields.flatMap((f) => [
      { name: `${f} of 256 characters`, body: { [f]: text(256) }, path: f, code: 'too_big' },
      { name: `${f} of 1 character`, body: { [f]: 'a' }, path: f, code: 'too_small' },
    ]),
    { name: 'houseNumber of 256 characters', body: { houseNumber: text(256, '1') }, path: 'houseNumber', code: 'too_big' },
    { name: 'email missing', body: { email: undefined }, path: 'email' },
    { name: 'email not an address', body: { email: 'not-an-email' }, path: 'email' },
    { name: 'email of 256 characters', body: { email: `${text(244)}@example.com` }, path: 'email' },
    { name: 'countryCode XX (not ISO 3166)', body: { countryCode: 'XX' }, path: 'countryCode' },
    { name: 'countryCode in lower case', body: { countryCode: 'de' }, path: 'countryCode' },
    { name: 'currencyCode not ISO 4217', body: { currencyCode: 'XYZ' }, path: 'currencyCode' },
    { name: 'currencyCode in lower case', body: { currencyCode: 'eur' }, path: 'currencyCode' },
    { name: 'timeZone not IANA', body: { timeZone: 'Mars/Base' }, path: 'timeZone' },
    { name: 'timeZone as an offset', body: { timeZone: '+02:00' }, path: 'timeZone' },
    { name: 'language outside the enum', body: { language: 'fr' }, path: 'language' },
    { name: 'gender outside the enum', body: { gender: 'other' }, path: 'gender' },
    { name: 'taxExempt outside the enum', body: { taxExempt: 'sometimes' }, path: 'taxExempt' },
    { name: 'an unknown field', body: { nickname: 'Bob' }, path: 'nickname', code: 'unknown_field' },
    { name: 'a wrongly typed field', body: { firstName: 42 }, path: 'firstName' },
    { name: 'a German VAT id with a bad format', body: { vatId: 'DE123' }, path: 'vatId', code: 'invalid_vat_id' },
    { name: 'a German VAT id with a bad check digit', body: { vatId: 'DE136695977' }, path: 'vatId', code: 'invalid_vat_id' },
    { name: 'invoiceEmail not an address', body: { invoiceEmail: 'billing-at-example' }, path: 'invoiceEmail' },
    { name: 'invoiceAddress zip of 1 character', body: { invoiceAddress: { zip: '1' } }, path: 'invoiceAddress.zip' },
    { name: 'invoiceAddress with a bad VAT id', body: { invoiceAddress: { vatId: 'DE123' } }, path: 'invoiceAddress.vatId', code: 'invalid_vat_id' },
    { name: 'invoiceAddress with an unknown field', body: { invoiceAddress: { floor: '3' } }, path: 'invoiceAddress.floor', code: 'unknown_field' },
    { name: 'invoiceAddress salutation outside the enum', body: { invoiceAddress: { salutation: 'Dr' } }, path: 'invoiceAddress.salutation' },
    { name: 'an unknown customerGroup', body: { customerGroup: 'no-such-group' }, path: 'customerGroup', code: 'not_found' },
    { name: 'an unknown contactPerson', body: { contactPerson: 'no-such-person' }, path: 'contactPerson', code: 'not_found' },
    { name: 'an unknown custom field', body: { customFields: { favouriteColour: 'blue' } }, path: 'customFields.favouriteColour', code: 'unknown_custom_field' },
  ];

  it.each(cases)('422 for $name', async ({ body, path, code }) => {
    const t = await createTenant();
    const res = await post(t, '/customers', baseBody(body));
    expect422(res, [path]);
    if (code) expect(violations(res)).toEqual([`${path}: ${code}`]);
    expect(await countRows('customers', t)).toBe(0);
    expect(await eventTypes(t)).toEqual([]);
  });

  it.each([
    { name: 'shortest', size: 2, houseNumber: '1' },
    { name: 'longest', size: 255, houseNumber: text(255, '9') },
  ])('accepts the $name allowed lengths', async ({ size, houseNumber }) => {
    const t = await createTenant();
    const fields = Object.fromEntries(lengthFields.map((f) => [f, text(size, f[0])]));
    const res = await post(t, '/customers', baseBody({ ...fields, houseNumber }));
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ firstName: fields.firstName, customerNumber: fields.customerNumber, ledgerId: fields.ledgerId });
    expect(res.body.defaultAddress).toMatchObject({ street: fields.street, zip: fields.zip, city: fields.city, addition: fields.addition, houseNumber });
  });

  it.each([
    { vatId: VALID_VAT_ID, isVatIdValid: true, why: 'a registered EU id' },
    { vatId: UNREGISTERED_VAT_ID, isVatIdValid: false, why: 'a well-formed EU id the registry does not know' },
    { vatId: 'CHE-123.456.789', isVatIdValid: false, why: 'a Swiss id (not EU, not checked)' },
    { vatId: 'GB123456789', isVatIdValid: false, why: 'a British id (not EU, not checked)' },
  ])('accepts vatId $vatId, $why, with isVatIdValid $isVatIdValid', async ({ vatId, isVatIdValid }) => {
    const t = await createTenant();
    const res = await post(t, '/customers', baseBody({ vatId, companyName: 'Vat Co' }));
    expectStatus(res, 201);
    expect(res.body.isVatIdValid).toBe(isVatIdValid);
    expect((await get(t, `/customers/${res.body.id}`)).body.isVatIdValid).toBe(isVatIdValid);
  });

  describe('customFields against the configuration', () => {
    async function tenantWithFields() {
      const t = await createTenant();
      await defineField(t, 'note', 'string');
      await defineField(t, 'score', 'number');
      await defineField(t, 'vip', 'boolean');
      await defineField(t, 'since', 'date');
      await defineField(t, 'segment', 'select', { options: ['smb', 'enterprise'] });
      return t;
    }

    it.each([
      { name: 'a number for a string field', customFields: { note: 5 }, path: 'customFields.note' },
      { name: 'an object for a string field', customFields: { note: { text: 'x' } }, path: 'customFields.note' },
      { name: 'a string for a number field', customFields: { score: '5' }, path: 'customFields.score' },
      { name: 'a string for a boolean field', customFields: { vip: 'yes' }, path: 'customFields.vip' },
      { name: 'a German date for a date field', customFields: { since: '31.12.2024' }, path: 'customFields.since' },
      { name: 'month 13 for a date field', customFields: { since: '2024-13-01' }, path: 'customFields.since' },
      { name: 'a number for a date field', customFields: { since: 20240101 }, path: 'customFields.since' },
      { name: 'an unlisted option for a select field', customFields: { segment: 'giant' }, path: 'customFields.segment' },
      { name: 'a boolean for a select field', customFields: { segment: true }, path: 'customFields.segment' },
    ])('422 for $name', async ({ customFields, path }) => {
      const t = await tenantWithFields();
      const res = await post(t, '/customers', baseBody({ customFields }));
      expect422(res, [path]);
      expect(await countRows('customers', t)).toBe(0);
    });

    it('accepts values of every type and stores them', async () => {
      const t = await tenantWithFields();
      const customFields = { note: 'hello', score: -3, vip: false, since: '2020-01-31', segment: 'smb' };
      const c = await createCustomer(t, { customFields });
      expect(c.customFields).toEqual(customFields);
      expect((await get(t, `/customers/${c.id}`)).body.customFields).toEqual(customFields);
    });

    it.each([
      { name: 'customFields missing', body: {} },
      { name: 'customFields without the field', body: { customFields: { other: 'x' } } },
      { name: 'the field null', body: { customFields: { contract: null } } },
    ])('422 on a required field for $name', async ({ body }) => {
      const t = await createTenant();
      await defineField(t, 'contract', 'string', { required: true });
      await defineField(t, 'other', 'string');
      const res = await post(t, '/customers', baseBody(body));
      expect422(res, ['customFields.contract']);
      expect(violations(res)).toEqual(['customFields.contract: custom_field_required']);
      // With the value present it passes.
      expectStatus(await post(t, '/customers', baseBody({ customFields: { contract: 'K-1' } })), 201);
    });

    it('ignores the definitions of other resources and other tenants', async () => {
      const other = await tenantWithFields();
      expect(other.id).toBeTruthy();
      const t = await createTenant();
      await created(post(t, '/custom-fields', { name: 'po', type: 'string', resource: 'invoice' }));
      const res = await post(t, '/customers', baseBody({ customFields: { po: 'x', note: 'y' } }));
      expect422(res, ['customFields.po', 'customFields.note']);
    });
  });

  it('reports every broken schema rule of one request, one violation each', async () => {
    const t = await createTenant();
    const res = await post(t, '/customers', {
      email: 'nope',
      countryCode: 'XX',
      firstName: 'A',
      lastName: text(256),
      language: 'fr',
      houseNumber: text(256),
      nickname: 'x',
    });
    expect422(res, ['email', 'countryCode', 'firstName', 'lastName', 'language', 'houseNumber', 'nickname']);
  });

  it('reports every broken reference rule of one request, one violation each', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'taken@example.com', customerNumber: 'TAKEN' });
    const res = await post(t, '/customers', {
      email: 'TAKEN@example.com',
      countryCode: 'DE',
      customerNumber: 'TAKEN',
      customerGroup: 'missing-group',
      contactPerson: 'missing-person',
      vatId: 'DE123',
      customFields: { ghost: 1 },
    });
    expect422(res, ['email', 'customerNumber', 'customerGroup', 'contactPerson', 'vatId', 'customFields.ghost']);
    expect(await countRows('customers', t)).toBe(1);
  });

  // Two phases (docs/decisions.md): the shape of the body is checked first, then what needs the
  // database (references, uniqueness); each phase reports every rule it finds broken.
  it('reports shape violations first, then reference and uniqueness violations together', async () => {
    const t = await createTenant();
    const taken = await createCustomer(t);
    const shape = await post(t, '/customers', baseBody({ firstName: 'A', lastName: 'B', customerGroup: 'missing-group' }));
    expect422(shape, ['firstName', 'lastName']);
    const refs = await post(t, '/customers', baseBody({ email: taken.email, customerGroup: 'missing-group', contactPerson: 'missing-person' }));
    expect422(refs, ['email', 'customerGroup', 'contactPerson']);
  });

  it.each([
    { name: 'malformed JSON', rawBody: '{"email": ', contentType: 'application/json', status: 400 },
    { name: 'a form body', rawBody: 'email=a%40b.c', contentType: 'application/x-www-form-urlencoded', status: 415 },
  ])('refuses $name', async ({ rawBody, contentType, status }) => {
    const t = await createTenant();
    const res = await api('/customers', { token: t.key, method: 'POST', rawBody, contentType });
    expectProblem(res, status);
    expect(await countRows('customers', t)).toBe(0);
  });
});

describe('customer uniqueness', () => {
  it('refuses an e-mail already used in the tenant, whatever its case', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'Dup.Person@Example.com' });
    const res = await post(t, '/customers', baseBody({ email: 'dup.person@example.COM' }));
    expect422(res, ['email']);
    expect(violations(res)).toEqual(['email: not_unique']);
    expect(await countRows('customers', t)).toBe(1);
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });

  it('allows the same e-mail in another tenant', async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createCustomer(a, { email: 'shared@example.com' });
    const res = await post(b, '/customers', baseBody({ email: 'shared@example.com' }));
    expectStatus(res, 201);
  });

  it('refuses a customerNumber given by hand that already exists', async () => {
    const t = await createTenant();
    await createCustomer(t, { customerNumber: 'K-1000' });
    const res = await post(t, '/customers', baseBody({ email: 'second@example.com', customerNumber: 'K-1000' }));
    expect422(res, ['customerNumber']);
    expect(violations(res)).toEqual(['customerNumber: not_unique']);
    expect(await countRows('customers', t)).toBe(1);
  });

  it('lets exactly one of 25 concurrent creations with one e-mail win', async () => {
    const t = await createTenant();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => post(t, '/customers', { email: 'race@example.com', countryCode: 'DE', firstName: `Racer ${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(24);
    for (const r of results.filter((x) => x.status === 422)) expect(violations(r)).toEqual(['email: not_unique']);
    expect(await countRows('customers', t)).toBe(1);
    expect(await countRows('customer_email_addresses', t)).toBe(1);
    expect(await countRows('customer_addresses', t)).toBe(1);
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });
});

describe('ledgerId (accounting.useDebitorAccounts)', () => {
  it('generates 10000, 10001, … when the setting is on and no ledgerId is given', async () => {
    const t = await createTenant();
    await setSettings(t, [{ key: 'accounting.useDebitorAccounts', value: true }]);
    const first = await createCustomer(t);
    const manual = await createCustomer(t, { ledgerId: 'EXT-7' });
    const second = await createCustomer(t);
    expect([first.ledgerId, manual.ledgerId, second.ledgerId]).toEqual(['10000', 'EXT-7', '10001']);
  });

  it('starts at accounting.debitorAccountStart', async () => {
    const t = await createTenant();
    await setSettings(t, [
      { key: 'accounting.useDebitorAccounts', value: true },
      { key: 'accounting.debitorAccountStart', value: 70000 },
    ]);
    expect((await createCustomer(t)).ledgerId).toBe('70000');
    expect((await createCustomer(t)).ledgerId).toBe('70001');
  });

  it.each([
    { name: 'by default', settings: [] },
    { name: 'when switched off', settings: [{ key: 'accounting.useDebitorAccounts', value: false }] },
  ])('generates nothing $name', async ({ settings }) => {
    const t = await createTenant();
    if (settings.length) await setSettings(t, settings);
    expect((await createCustomer(t)).ledgerId).toBeNull();
    expect((await createCustomer(t, { ledgerId: 'EXT-1' })).ledgerId).toBe('EXT-1');
  });
});

describe('idempotent POST /customers', () => {
  it('replays the first response for the same key and body', async () => {
    const t = await createTenant();
    const key = unique('idem');
    const body = baseBody({ firstName: 'Ida' });
    const first = await post(t, '/customers', body, { 'Idempotency-Key': key });
    expectStatus(first, 201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const second = await post(t, '/customers', body, { 'Idempotency-Key': key });
    expectStatus(second, 201);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countRows('customers', t)).toBe(1);
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });

  it('422 for the same key with another body; a new key creates another customer', async () => {
    const t = await createTenant();
    const key = unique('idem');
    expectStatus(await post(t, '/customers', baseBody({ email: 'one@example.com' }), { 'Idempotency-Key': key }), 201);
    const reused = await post(t, '/customers', baseBody({ email: 'two@example.com' }), { 'Idempotency-Key': key });
    expectProblem(reused, 422);
    expect(await countRows('customers', t)).toBe(1);
    expectStatus(await post(t, '/customers', baseBody({ email: 'two@example.com' }), { 'Idempotency-Key': unique('idem') }), 201);
    expect(await countRows('customers', t)).toBe(2);
  });

  it('keys are per tenant', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const key = unique('idem');
    const ra = await post(a, '/customers', baseBody(), { 'Idempotency-Key': key });
    const rb = await post(b, '/customers', baseBody(), { 'Idempotency-Key': key });
    expectStatus(ra, 201);
    expectStatus(rb, 201);
    expect(rb.headers.get('Idempotent-Replayed')).toBeNull();
    expect(rb.body.id).not.toBe(ra.body.id);
  });
});
