import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, createCustomer, createTenant, keyWith, unique, violations, type ApiResponse, type TestTenant, query, eventsOf, type StoredEvent, countRows, expectStatus, paths, expect422, expectProblem } from './helpers';

// Customers (spec §2.1, §4.2) and the records they refer to: customer groups, contact persons,
// custom fields, tenant and customer settings, addresses, e-mail addresses, partners and the
// outbox events every change writes. Storage is shared inside this file, so every test works in
// a fresh tenant of its own.

const VALID_VAT_ID = 'DE136695976';
/** Well-formed, but the fake VIES of the test environment reports it as not registered. */
const UNREGISTERED_VAT_ID = 'DE811907980';

// ---------------------------------------------------------------------------------------------
// Helpers

const text = (n: number, ch = 'a') => ch.repeat(n);

async function eventTypes(t: TestTenant, resourceId?: string): Promise<string[]> {
  return (await eventsOf(t, resourceId)).map((e) => e.type);
}

const post = (t: TestTenant, path: string, body: unknown, headers?: Record<string, string>) =>
  api(path, { token: t.key, method: 'POST', body, headers });
const put = (t: TestTenant, path: string, body?: unknown) =>
  api(path, { token: t.key, method: 'PUT', ...(body === undefined ? {} : { body }) });
const patch = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'PATCH', body });
const get = (t: TestTenant, path: string) => api(path, { token: t.key });
const del = (t: TestTenant, path: string) => api(path, { token: t.key, method: 'DELETE' });

async function created(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expectStatus(r, 201);
  return r.body;
}

async function setSettings(t: TestTenant, settings: { key: string; value: unknown }[]) {
  const res = await patch(t, '/settings', { settings });
  expectStatus(res, 200);
  return res.body;
}

async function setClock(t: TestTenant, now: string) {
  const res = await put(t, '/test-clock', { now });
  expectStatus(res, 200);
}

async function defineField(t: TestTenant, name: string, type: string, extra: Record<string, unknown> = {}) {
  return created(post(t, '/custom-fields', { name, type, resource: 'customer', ...extra }));
}

async function createGroup(t: TestTenant, name = 'Key accounts', description: string | null = 'Our largest customers') {
  return created(post(t, '/customer-groups', { name, description }));
}

async function createContact(t: TestTenant) {
  return created(
    post(t, '/contact-persons', { firstName: 'Carla', lastName: 'Contact', email: 'carla@seller.example', avatar: 'https://img.example/carla.png' }),
  );
}

/** Sorts the embedded arrays, so representations compare regardless of the order of equal-time rows. */
function normalized(customer: any) {
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  return { ...customer, addresses: [...customer.addresses].sort(byId), emailAddresses: [...customer.emailAddresses].sort(byId) };
}

const baseBody = (overrides: Record<string, unknown> = {}) => ({ email: 'someone@example.com', countryCode: 'DE', ...overrides });

// ---------------------------------------------------------------------------------------------

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
    { name: 'countryCode missing', body: { countryCode: undefined }, path: 'countryCode' },
    { name: 'countryCode null', body: { countryCode: null }, path: 'countryCode' },
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

describe('GET /customers', () => {
  async function tenantWithCustomers(n: number) {
    const t = await createTenant();
    for (let i = 0; i < n; i++) await createCustomer(t);
    return t;
  }

  it.each([
    { query: '', data: 5, meta: { totalItems: 5, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 5 } },
    { query: '?limit=2', data: 2, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 1, lastPage: 3, pageTotalItems: 2 } },
    { query: '?limit=2&page=2', data: 2, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 2, lastPage: 3, pageTotalItems: 2 } },
    { query: '?limit=2&page=3', data: 1, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 3, lastPage: 3, pageTotalItems: 1 } },
    { query: '?limit=2&page=4', data: 0, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 4, lastPage: 3, pageTotalItems: 0 } },
    { query: '?limit=100', data: 5, meta: { totalItems: 5, itemsPerPage: 100, currentPage: 1, lastPage: 1, pageTotalItems: 5 } },
    { query: '?limit=0', data: 0, meta: { totalItems: 5, itemsPerPage: 0, currentPage: 1, pageTotalItems: 0 } },
  ])('paginates with "$query"', async ({ query: q, data, meta }) => {
    const t = await tenantWithCustomers(5);
    const res = await get(t, `/customers${q}`);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(data);
    expect(res.body.meta.pagination).toMatchObject(meta);
  });

  it('walks every customer exactly once across pages', async () => {
    const t = await tenantWithCustomers(5);
    const seen: string[] = [];
    for (const page of [1, 2, 3]) seen.push(...(await get(t, `/customers?limit=2&page=${page}`)).body.data.map((c: any) => c.id));
    expect(new Set(seen).size).toBe(5);
  });

  it.each(['limit=101', 'limit=-1', 'limit=abc', 'page=0', 'page=1.5', 'status=deleted', 'order[createdAt]=up'])('400 for %s', async (q) => {
    const t = await createTenant();
    expectProblem(await get(t, `/customers?${q}`), 400);
  });

  it('returns each customer in its full representation, as GET /customers/{id} does', async () => {
    const t = await createTenant();
    const group = await createGroup(t);
    const c = await createCustomer(t, { customerGroup: group.id, invoiceEmail: 'bill@example.com', invoiceAddress: { city: 'Bonn' } });
    const res = await get(t, '/customers');
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(1);
    const item = res.body.data[0];
    expect(item.addresses).toHaveLength(2);
    expect(item.emailAddresses).toHaveLength(2);
    expect(item.defaultInvoiceAddress).toMatchObject({ type: 'TYPE_INVOICE', city: 'Bonn' });
    expect(item.customerGroup).toEqual({ id: group.id, name: group.name, description: group.description });
    expect(normalized(item)).toEqual(normalized(c));
  });

  it('shows only the own tenant', async () => {
    const a = await tenantWithCustomers(2);
    const b = await tenantWithCustomers(1);
    expect((await get(a, '/customers')).body.meta.pagination.totalItems).toBe(2);
    expect((await get(b, '/customers')).body.meta.pagination.totalItems).toBe(1);
  });

  describe('filters', () => {
    async function people(t: TestTenant) {
      const anna = await createCustomer(t, { email: 'anna@alpha.example', firstName: 'Anna', lastName: 'Berg', customerNumber: 'N-100' });
      const bernd = await createCustomer(t, { email: 'bernd@beta.example', firstName: 'Bernd', lastName: 'Stein', companyName: 'Steinbruch AG', customerNumber: 'N-200' });
      const clara = await createCustomer(t, { email: 'Clara@Gamma.example', companyName: 'Gamma Werke', customerNumber: 'X-300' });
      expectStatus(await put(t, `/customers/${clara.id}/archive`), 200);
      return { anna: anna.id, bernd: bernd.id, clara: clara.id } as Record<string, string>;
    }

    it.each([
      { query: 'search=anna', expected: ['anna'] },
      { query: 'search=BERG', expected: ['anna'] },
      { query: 'search=Anna%20Berg', expected: ['anna'] },
      { query: 'search=steinbruch', expected: ['bernd'] },
      { query: 'search=stein', expected: ['bernd'] },
      { query: 'search=gamma.example', expected: ['clara'] },
      { query: 'search=N-', expected: ['anna', 'bernd'] },
      { query: 'search=X-300', expected: ['clara'] },
      { query: 'search=%25', expected: [] },
      { query: 'search=_', expected: [] },
      { query: 'search=nobody', expected: [] },
      { query: 'status=STATUS_ACTIVE', expected: ['anna', 'bernd'] },
      { query: 'status=STATUS_ARCHIVED', expected: ['clara'] },
      { query: 'status=STATUS_SUSPENDED', expected: [] },
      { query: 'customerNumber=N-200', expected: ['bernd'] },
      { query: 'customerNumber=N-2', expected: [] },
      { query: 'email=clara@gamma.example', expected: ['clara'] },
      { query: 'email=ANNA@ALPHA.EXAMPLE', expected: ['anna'] },
      { query: 'email=anna', expected: [] },
      { query: 'search=a&status=STATUS_ARCHIVED', expected: ['clara'] },
    ])('filters by $query', async ({ query: q, expected }) => {
      const t = await createTenant();
      const ids = await people(t);
      const res = await get(t, `/customers?${q}`);
      expectStatus(res, 200);
      const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      expect(res.body.data.map((c: any) => names[c.id]).sort()).toEqual(expected);
      expect(res.body.meta.pagination.totalItems).toBe(expected.length);
    });
  });

  describe('sorting', () => {
    // Created one minute apart; numbers chosen so that number order differs from creation order.
    async function sorted(t: TestTenant) {
      const ids: Record<string, string> = {};
      const specs = [
        ['first', 'N-3', '2031-03-01T10:00:00.000Z'],
        ['second', 'N-1', '2031-03-01T10:01:00.000Z'],
        ['third', 'N-2', '2031-03-01T10:02:00.000Z'],
      ] as const;
      for (const [name, number, at] of specs) {
        await setClock(t, at);
        const c = await createCustomer(t, { customerNumber: number });
        expect(c.createdAt).toBe(at);
        ids[c.id] = name;
      }
      return ids;
    }

    it.each([
      { query: '', expected: ['third', 'second', 'first'] },
      { query: '?order[createdAt]=desc', expected: ['third', 'second', 'first'] },
      { query: '?order[createdAt]=asc', expected: ['first', 'second', 'third'] },
      { query: '?order[customerNumber]=asc', expected: ['second', 'third', 'first'] },
      { query: '?order[customerNumber]=desc', expected: ['first', 'third', 'second'] },
      { query: '?order[createdAt]=asc&limit=2&page=2', expected: ['third'] },
    ])('orders "$query"', async ({ query: q, expected }) => {
      const t = await createTenant();
      const ids = await sorted(t);
      const res = await get(t, `/customers${q}`);
      expectStatus(res, 200);
      expect(res.body.data.map((c: any) => ids[c.id])).toEqual(expected);
    });
  });
});

describe('GET /customers/{id}', () => {
  it('404 for an unknown id and for the id of another tenant', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const foreign = await createCustomer(b);
    expectProblem(await get(a, '/customers/does-not-exist'), 404);
    expectProblem(await get(a, `/customers/${foreign.id}`), 404);
  });

  it.each([
    { method: 'PUT', path: '/customers/{id}', body: { email: 'x@example.com', countryCode: 'DE' } },
    { method: 'PATCH', path: '/customers/{id}', body: { firstName: 'Mallory' } },
    { method: 'DELETE', path: '/customers/{id}' },
    { method: 'PUT', path: '/customers/{id}/archive' },
    { method: 'PUT', path: '/customers/{id}/partner', body: { partner: null } },
    { method: 'GET', path: '/customers/{id}/addresses' },
    { method: 'POST', path: '/customers/{id}/addresses', body: { type: 'TYPE_INVOICE', city: 'Bonn' } },
    { method: 'POST', path: '/customers/{id}/email-addresses', body: { email: 'x@example.com', type: 'invoice' } },
    { method: 'GET', path: '/customers/{id}/settings/billing' },
    { method: 'PATCH', path: '/customers/{id}/settings/billing', body: { requiresManualInvoiceApproval: true } },
  ])('$method $path on another tenant’s customer is 404 and changes nothing', async ({ method, path, body }) => {
    const a = await createTenant();
    const b = await createTenant();
    const foreign = await createCustomer(b);
    const before = (await get(b, `/customers/${foreign.id}`)).body;
    const res = await api(path.replace('{id}', foreign.id), { token: a.key, method, ...(body ? { body } : {}) });
    expectProblem(res, 404);
    expect((await get(b, `/customers/${foreign.id}`)).body).toEqual(before);
    expect((await get(b, `/customers/${foreign.id}/settings/billing`)).body).toEqual({ requiresManualInvoiceApproval: null });
    expect(await eventTypes(b)).toEqual(['customer.created']);
  });
});

describe('PUT /customers/{id}', () => {
  it('replaces the writable fields and keeps addresses and e-mail addresses', async () => {
    const t = await createTenant();
    const group = await createGroup(t);
    const c = await createCustomer(t, { firstName: 'Anna', phone: '+49 1', companyName: 'Old Co', street: 'Weg', city: 'Köln', invoiceEmail: 'bill@example.com' });
    const res = await put(t, `/customers/${c.id}`, {
      email: 'new.anna@example.com',
      countryCode: 'AT',
      firstName: 'Anna-Lena',
      language: 'en',
      customerGroup: group.id,
      vatId: VALID_VAT_ID,
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: c.id,
      customerNumber: c.customerNumber,
      email: 'new.anna@example.com',
      countryCode: 'AT',
      firstName: 'Anna-Lena',
      language: 'en',
      phone: null,
      companyName: null,
      businessCustomer: false,
      vatId: VALID_VAT_ID,
      isVatIdValid: true,
      customerGroup: { id: group.id, name: group.name, description: group.description },
      createdAt: c.createdAt,
    });
    // Addresses are untouched; the login e-mail (default e-mail address) follows `email`.
    expect(res.body.defaultAddress).toEqual(c.defaultAddress);
    expect(res.body.defaultEmailAddress).toMatchObject({ id: c.defaultEmailAddress.id, email: 'new.anna@example.com' });
    expect(res.body.defaultInvoiceEmailAddress).toEqual(c.defaultInvoiceEmailAddress);
    expect(normalized((await get(t, `/customers/${c.id}`)).body)).toEqual(normalized(res.body));
    const stored = await query<{ email: string }>('SELECT email FROM customer_email_addresses WHERE tenant_id = ? AND type = ?', t.id, 'default');
    expect(stored).toEqual([{ email: 'new.anna@example.com' }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated']);
  });

  it('422 for an invalid body and changes nothing', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const res = await put(t, `/customers/${c.id}`, { email: 'x@example.com', countryCode: 'DE', firstName: 'A', street: 'Not here' });
    expect422(res, ['firstName', 'street']);
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Anna');
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for an e-mail or number of another customer', async () => {
    const t = await createTenant();
    const other = await createCustomer(t, { email: 'other@example.com', customerNumber: 'OTHER-1' });
    const c = await createCustomer(t);
    const res = await put(t, `/customers/${c.id}`, { email: 'OTHER@example.com', countryCode: 'DE', customerNumber: other.customerNumber });
    expect422(res, ['email', 'customerNumber']);
    // Keeping its own e-mail and number is fine.
    expectStatus(await put(t, `/customers/${c.id}`, { email: c.email.toUpperCase(), countryCode: 'DE', customerNumber: c.customerNumber }), 200);
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await put(t, '/customers/unknown-id', baseBody()), 404);
  });
});

describe('PATCH /customers/{id} (merge patch)', () => {
  it('changes only the given fields', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna', lastName: 'Berg', phone: '+49 30 1', language: 'en' });
    const res = await patch(t, `/customers/${c.id}`, { firstName: 'Berta' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ firstName: 'Berta', lastName: 'Berg', phone: '+49 30 1', language: 'en', email: c.email });
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Berta');
    const evts = await eventsOf(t, c.id);
    expect(evts.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
    expect(evts[1]!.data).toMatchObject({ id: c.id, firstName: 'Berta' });
  });

  it.each([
    { field: 'phone', initial: { phone: '+49 30 1' } },
    { field: 'companyName', initial: { companyName: 'Berg GmbH' }, also: { businessCustomer: false } },
    { field: 'gender', initial: { gender: 'diverse' } },
    { field: 'currencyCode', initial: { currencyCode: 'USD' } },
    { field: 'vatId', initial: { vatId: VALID_VAT_ID }, also: { isVatIdValid: false } },
    { field: 'ledgerId', initial: { ledgerId: 'L-1' } },
  ])('null removes $field', async ({ field, initial, also }) => {
    const t = await createTenant();
    const c = await createCustomer(t, initial);
    expect(c[field]).not.toBeNull();
    const res = await patch(t, `/customers/${c.id}`, { [field]: null });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ [field]: null, ...also });
    expect((await get(t, `/customers/${c.id}`)).body[field]).toBeNull();
  });

  it('null on a field with a default restores the default', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { language: 'en', timeZone: 'America/New_York', taxExempt: 'exempt' });
    const res = await patch(t, `/customers/${c.id}`, { language: null, timeZone: null, taxExempt: null });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ language: 'de', timeZone: 'Europe/Berlin', taxExempt: 'auto' });
  });

  it('merges customFields member by member', async () => {
    const t = await createTenant();
    await defineField(t, 'a', 'string');
    await defineField(t, 'b', 'number');
    const c = await createCustomer(t, { customFields: { a: 'x', b: 1 } });
    const res = await patch(t, `/customers/${c.id}`, { customFields: { b: 2 } });
    expectStatus(res, 200);
    expect(res.body.customFields).toEqual({ a: 'x', b: 2 });
    const removed = await patch(t, `/customers/${c.id}`, { customFields: { a: null } });
    expect(removed.body.customFields).toEqual({ b: 2 });
  });

  it.each([
    { vatId: UNREGISTERED_VAT_ID, isVatIdValid: false },
    { vatId: VALID_VAT_ID, isVatIdValid: true },
  ])('re-checks a changed vatId ($vatId → $isVatIdValid)', async ({ vatId, isVatIdValid }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { vatId: isVatIdValid ? UNREGISTERED_VAT_ID : VALID_VAT_ID });
    expect(c.isVatIdValid).toBe(!isVatIdValid);
    const res = await patch(t, `/customers/${c.id}`, { vatId });
    expectStatus(res, 200);
    expect(res.body.isVatIdValid).toBe(isVatIdValid);
  });

  it.each([
    { name: 'a too short firstName', body: { firstName: 'B' }, path: 'firstName' },
    { name: 'an invalid e-mail', body: { email: 'not-an-email' }, path: 'email' },
    { name: 'removing the required countryCode', body: { countryCode: null }, path: 'countryCode' },
    { name: 'removing the required email', body: { email: null }, path: 'email' },
    { name: 'an unknown field', body: { nickname: 'x' }, path: 'nickname' },
    { name: 'a bad VAT id', body: { vatId: 'DE123' }, path: 'vatId' },
    { name: 'an unknown customer group', body: { customerGroup: 'missing' }, path: 'customerGroup' },
    { name: 'a lower-case country', body: { countryCode: 'at' }, path: 'countryCode' },
  ])('422 when the result has $name, and nothing changes', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const before = (await get(t, `/customers/${c.id}`)).body;
    const res = await patch(t, `/customers/${c.id}`, body);
    expect422(res, [path]);
    expect((await get(t, `/customers/${c.id}`)).body).toEqual(before);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for the e-mail of another customer, in any case', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'first@example.com' });
    const c = await createCustomer(t);
    const res = await patch(t, `/customers/${c.id}`, { email: 'FIRST@example.com' });
    expect422(res, ['email']);
  });

  it('changes the login e-mail together with the default e-mail address', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'old@example.com' });
    const res = await patch(t, `/customers/${c.id}`, { email: 'new@example.com' });
    expectStatus(res, 200);
    expect(res.body.defaultEmailAddress).toMatchObject({ id: c.defaultEmailAddress.id, email: 'new@example.com' });
    const found = await get(t, '/customers?email=new@example.com');
    expect(found.body.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await get(t, '/customers?email=old@example.com')).body.data).toEqual([]);
  });

  it.each([
    { name: 'application/json', contentType: 'application/json' },
    { name: 'text/plain', contentType: 'text/plain' },
  ])('415 for a body sent as $name', async ({ contentType }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const res = await api(`/customers/${c.id}`, { token: t.key, method: 'PATCH', body: { firstName: 'Berta' }, contentType });
    expectProblem(res, 415);
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Anna');
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await patch(t, '/customers/unknown-id', { firstName: 'Anna' }), 404);
  });
});

describe('DELETE /customers/{id}', () => {
  it('deletes the customer with its addresses and e-mail addresses', async () => {
    const t = await createTenant();
    const keep = await createCustomer(t);
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com', invoiceAddress: { city: 'Bonn' } });
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(2);
    const res = await del(t, `/customers/${c.id}`);
    expectStatus(res, 204);
    expectProblem(await get(t, `/customers/${c.id}`), 404);
    expect(await countRows('customers', t, 'AND id = ?', c.id)).toBe(0);
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(0);
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(0);
    // Other customers keep theirs.
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', keep.id)).toBe(1);
    const evts = await eventsOf(t, c.id);
    expect(evts.map((e) => e.type)).toEqual(['customer.created', 'customer.deleted']);
    expect(evts[1]!.data).toMatchObject({ id: c.id });
    // The e-mail is free again.
    expectStatus(await post(t, '/customers', baseBody({ email: c.email })), 201);
  });

  it('409 while the customer has documents; the customer stays', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await env.DB.prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), t.id, c.id, 'TYPE_INVOICE', 'STATUS_PAID', 'RE-2030-00001', new Date().toISOString())
      .run();
    const res = await del(t, `/customers/${c.id}`);
    expectProblem(res, 409);
    expectStatus(await get(t, `/customers/${c.id}`), 200);
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('ignores documents of another tenant with the same customer id', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await env.DB.prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), 'some-other-tenant', c.id, 'TYPE_INVOICE', 'STATUS_DRAFT', null, new Date().toISOString())
      .run();
    expectStatus(await del(t, `/customers/${c.id}`), 204);
  });

  it('404 for an unknown customer and for a second delete', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expectProblem(await del(t, '/customers/unknown-id'), 404);
    expectStatus(await del(t, `/customers/${c.id}`), 204);
    expectProblem(await del(t, `/customers/${c.id}`), 404);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.deleted']);
  });
});

describe('archive and unarchive', () => {
  it.each([
    { from: 'STATUS_ACTIVE', action: 'archive', status: 200, to: 'STATUS_ARCHIVED', event: 'customer.archived' },
    { from: 'STATUS_ARCHIVED', action: 'unarchive', status: 200, to: 'STATUS_ACTIVE', event: 'customer.unarchived' },
    { from: 'STATUS_ARCHIVED', action: 'archive', status: 409, to: 'STATUS_ARCHIVED', event: null },
    { from: 'STATUS_ACTIVE', action: 'unarchive', status: 409, to: 'STATUS_ACTIVE', event: null },
  ])('$action from $from → $status', async ({ from, action, status, to, event }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    if (from === 'STATUS_ARCHIVED') expectStatus(await put(t, `/customers/${c.id}/archive`), 200);
    const before = await eventTypes(t, c.id);
    const res = await put(t, `/customers/${c.id}/${action}`);
    if (status === 200) {
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ id: c.id, status: to });
    } else {
      expectProblem(res, 409);
    }
    expect((await get(t, `/customers/${c.id}`)).body.status).toBe(to);
    expect(await eventTypes(t, c.id)).toEqual(event ? [...before, event] : before);
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await put(t, '/customers/unknown-id/archive'), 404);
    expectProblem(await put(t, '/customers/unknown-id/unarchive'), 404);
  });
});

describe('addresses sub-resource', () => {
  const addr = (overrides: Record<string, unknown> = {}) => ({
    type: 'TYPE_DEFAULT',
    street: 'Nebenstraße',
    houseNumber: '5',
    zip: '50667',
    city: 'Köln',
    ...overrides,
  });

  async function storedDefaults(t: TestTenant, customerId: string) {
    return query<{ id: string; type: string }>(
      'SELECT id, type FROM customer_addresses WHERE tenant_id = ? AND customer_id = ? AND is_default = 1 ORDER BY type',
      t.id,
      customerId,
    );
  }

  it('lists the addresses with pagination', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceAddress: { city: 'Bonn' } });
    const res = await get(t, `/customers/${c.id}/addresses`);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data).toEqual(expect.arrayContaining([c.defaultAddress, c.defaultInvoiceAddress]));
    expect(res.body.meta.pagination).toMatchObject({ totalItems: 2, currentPage: 1, pageTotalItems: 2 });
    const page = await get(t, `/customers/${c.id}/addresses?limit=1&page=2`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toMatchObject({ totalItems: 2, itemsPerPage: 1, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    expectProblem(await get(t, `/customers/${c.id}/addresses?limit=101`), 400);
  });

  it('makes the first address of a type its default; later ones are not', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const firstInvoice = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Bonn' })));
    expect(firstInvoice).toMatchObject({ type: 'TYPE_INVOICE', default: true, status: 'active', city: 'Bonn', countryCode: 'DE' });
    const secondInvoice = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Essen' })));
    expect(secondInvoice.default).toBe(false);
    const extra = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    expect(extra.default).toBe(false);

    const after = (await get(t, `/customers/${c.id}`)).body;
    expect(after.addresses).toHaveLength(4);
    expect(after.defaultAddress.id).toBe(c.defaultAddress.id);
    expect(after.defaultInvoiceAddress.id).toBe(firstInvoice.id);
    expect(await storedDefaults(t, c.id)).toEqual([
      { id: c.defaultAddress.id, type: 'TYPE_DEFAULT' },
      { id: firstInvoice.id, type: 'TYPE_INVOICE' },
    ]);
  });

  it('moves the default with default: true, keeping one default per type', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const moved = await created(post(t, `/customers/${c.id}/addresses`, addr({ default: true, countryCode: 'NL', city: 'Amsterdam' })));
    expect(moved).toMatchObject({ default: true, countryCode: 'NL' });
    const after = (await get(t, `/customers/${c.id}`)).body;
    expect(after.defaultAddress.id).toBe(moved.id);
    expect(after.addresses.find((a: any) => a.id === c.defaultAddress.id).default).toBe(false);
    expect(await storedDefaults(t, c.id)).toEqual([{ id: moved.id, type: 'TYPE_DEFAULT' }]);
    // The invoice address is still the fallback to the (new) default address.
    expect(after.defaultInvoiceAddress.id).toBe(moved.id);
  });

  it('uses the invoice address as defaultInvoiceAddress while it exists, else the default address', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { city: 'Berlin' });
    expect(c.defaultInvoiceAddress.id).toBe(c.defaultAddress.id);
    const inv = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Hamburg' })));
    let view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.defaultInvoiceAddress).toEqual(inv);
    expect(view.defaultAddress.id).toBe(c.defaultAddress.id);
    expectStatus(await del(t, `/customers/${c.id}/addresses/${inv.id}`), 204);
    view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.defaultInvoiceAddress).toEqual(view.defaultAddress);
  });

  it('gets and replaces an address', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr({ salutation: 'Frau', firstName: 'Eva', lastName: 'Ernst', costCentre: 'K1' })));
    const read = await get(t, `/customers/${c.id}/addresses/${a.id}`);
    expectStatus(read, 200);
    expect(read.body).toEqual(a);

    const res = await put(t, `/customers/${c.id}/addresses/${a.id}`, addr({ street: 'Neue Allee', houseNumber: '', zip: '04109', city: 'Leipzig', status: 'archived' }));
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: a.id, street: 'Neue Allee', houseNumber: '', zip: '04109', city: 'Leipzig', status: 'archived', salutation: null, firstName: null, costCentre: null });
    expect((await get(t, `/customers/${c.id}/addresses/${a.id}`)).body).toEqual(res.body);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated', 'customer.updated']);
  });

  it('makes another address the default through PUT', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    expectStatus(await put(t, `/customers/${c.id}/addresses/${a.id}`, addr({ default: true })), 200);
    expect(await storedDefaults(t, c.id)).toEqual([{ id: a.id, type: 'TYPE_DEFAULT' }]);
    expect((await get(t, `/customers/${c.id}`)).body.defaultAddress.id).toBe(a.id);
    // The former default is an ordinary address now and can go.
    expectStatus(await del(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`), 204);
  });

  it.each([
    { name: 'unsetting default', body: { default: false }, path: 'default' },
    { name: 'turning it into an invoice address', body: { type: 'TYPE_INVOICE' }, path: 'default' },
  ])('422 for $name on the only default address', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await put(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`, addr(body));
    expectProblem(res, 422);
    expect(paths(res)).toContain(path);
    expect((await get(t, `/customers/${c.id}`)).body.defaultAddress).toEqual(c.defaultAddress);
  });

  it('deletes an ordinary address but refuses the default address with 409', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    const before = await eventTypes(t, c.id);
    expectProblem(await del(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`), 409);
    expect(await eventTypes(t, c.id)).toEqual(before);
    expect(await countRows('customer_addresses', t, 'AND id = ?', c.defaultAddress.id)).toBe(1);
    expectStatus(await del(t, `/customers/${c.id}/addresses/${a.id}`), 204);
    expect(await countRows('customer_addresses', t, 'AND id = ?', a.id)).toBe(0);
    expectProblem(await get(t, `/customers/${c.id}/addresses/${a.id}`), 404);
    expect(await eventTypes(t, c.id)).toEqual([...before, 'customer.updated']);
  });

  it.each([
    { name: 'a missing type', body: { type: undefined }, path: 'type' },
    { name: 'an unknown type', body: { type: 'TYPE_SHIPPING' }, path: 'type' },
    { name: 'a 1-character zip', body: { zip: '1' }, path: 'zip' },
    { name: 'a 256-character street', body: { street: text(256) }, path: 'street' },
    { name: 'a 256-character houseNumber', body: { houseNumber: text(256) }, path: 'houseNumber' },
    { name: 'a bad country', body: { countryCode: 'XX' }, path: 'countryCode' },
    { name: 'a bad VAT id', body: { vatId: 'DE123' }, path: 'vatId' },
    { name: 'an unknown salutation', body: { salutation: 'Dr' }, path: 'salutation' },
    { name: 'an unknown field', body: { floor: 3 }, path: 'floor' },
    { name: 'an archived default address', body: { default: true, status: 'archived' }, path: 'status' },
  ])('422 on create for $name', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await post(t, `/customers/${c.id}/addresses`, addr(body));
    expect422(res, [path]);
    expect(await countRows('customer_addresses', t)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('404 for an unknown customer or address, and for an address of another customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const other = await createCustomer(t);
    expectProblem(await get(t, '/customers/unknown-id/addresses'), 404);
    expectProblem(await post(t, '/customers/unknown-id/addresses', addr()), 404);
    expectProblem(await get(t, `/customers/${c.id}/addresses/unknown-id`), 404);
    expectProblem(await get(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`), 404);
    expectProblem(await put(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`, addr()), 404);
    expectProblem(await del(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`), 404);
    expect(await countRows('customer_addresses', t, 'AND id = ?', other.defaultAddress.id)).toBe(1);
  });
});

describe('e-mail addresses sub-resource', () => {
  async function storedDefaults(t: TestTenant, customerId: string) {
    return query<{ email: string; type: string }>(
      'SELECT email, type FROM customer_email_addresses WHERE tenant_id = ? AND customer_id = ? AND is_default = 1 ORDER BY type',
      t.id,
      customerId,
    );
  }

  it('lists the e-mail addresses', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com' });
    const res = await get(t, `/customers/${c.id}/email-addresses`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual(expect.arrayContaining([c.defaultEmailAddress, c.defaultInvoiceEmailAddress]));
    expect(res.body.meta.pagination).toMatchObject({ totalItems: 2, pageTotalItems: 2 });
  });

  it('makes the first e-mail of a type its default; more of a type are not', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com' });
    const inv = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'bill@example.com', receiverName: 'Accounts', type: 'invoice' }));
    expect(inv).toEqual({ id: expect.any(String), email: 'bill@example.com', receiverName: 'Accounts', type: 'invoice', default: true });
    const cc = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'cc@example.com', type: 'default' }));
    expect(cc.default).toBe(false);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('login@example.com');
    expect(view.defaultInvoiceEmailAddress).toEqual(inv);
    expect(view.defaultEmailAddress.email).toBe('login@example.com');
    expect(await storedDefaults(t, c.id)).toEqual([
      { email: 'login@example.com', type: 'default' },
      { email: 'bill@example.com', type: 'invoice' },
    ]);
  });

  it('a new default e-mail of type default becomes the login e-mail', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'old-login@example.com' });
    const e = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'New-Login@example.com', type: 'default', default: true }));
    expect(e.default).toBe(true);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('New-Login@example.com');
    expect(view.defaultEmailAddress).toEqual(e);
    expect(view.emailAddresses.find((x: any) => x.id === c.defaultEmailAddress.id).default).toBe(false);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'New-Login@example.com', type: 'default' }]);
    // The old login is free for another customer; the new one is not.
    expectStatus(await post(t, '/customers', baseBody({ email: 'old-login@example.com' })), 201);
    expect422(await post(t, '/customers', baseBody({ email: 'new-login@example.com' })), ['email']);
    expect((await eventsOf(t, c.id)).at(-1)!.data).toMatchObject({ email: 'New-Login@example.com' });
  });

  it('422 when the new login e-mail belongs to another customer; nothing changes', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'owner@example.com' });
    const c = await createCustomer(t, { email: 'mine@example.com' });
    const res = await post(t, `/customers/${c.id}/email-addresses`, { email: 'OWNER@example.com', type: 'default', default: true });
    expect422(res, ['email']);
    expect((await get(t, `/customers/${c.id}`)).body.email).toBe('mine@example.com');
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'mine@example.com', type: 'default' }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('gets and replaces an e-mail address; replacing the login address changes the login', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com', invoiceEmail: 'bill@example.com' });
    const inv = c.defaultInvoiceEmailAddress;
    expect((await get(t, `/customers/${c.id}/email-addresses/${inv.id}`)).body).toEqual(inv);

    const res = await put(t, `/customers/${c.id}/email-addresses/${inv.id}`, { email: 'accounts@example.com', receiverName: 'Accounts', type: 'invoice' });
    expectStatus(res, 200);
    expect(res.body).toEqual({ id: inv.id, email: 'accounts@example.com', receiverName: 'Accounts', type: 'invoice', default: true });

    const login = await put(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`, { email: 'login2@example.com', type: 'default' });
    expectStatus(login, 200);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.email).toBe('login2@example.com');
    expect(view.defaultInvoiceEmailAddress.email).toBe('accounts@example.com');
  });

  it.each([
    { name: 'unsetting default', body: { default: false, type: 'default' } },
    { name: 'turning it into an invoice address', body: { type: 'invoice' } },
  ])('422 for $name on the login e-mail', async ({ body }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'login@example.com' });
    const res = await put(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`, { email: 'login@example.com', ...body });
    expectProblem(res, 422);
    expect(await storedDefaults(t, c.id)).toEqual([{ email: 'login@example.com', type: 'default' }]);
  });

  it('deletes an e-mail address but refuses the login e-mail with 409', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com' });
    expectProblem(await del(t, `/customers/${c.id}/email-addresses/${c.defaultEmailAddress.id}`), 409);
    expect(await countRows('customer_email_addresses', t, 'AND id = ?', c.defaultEmailAddress.id)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
    expectStatus(await del(t, `/customers/${c.id}/email-addresses/${c.defaultInvoiceEmailAddress.id}`), 204);
    const view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.emailAddresses).toEqual([c.defaultEmailAddress]);
    expect(view.defaultInvoiceEmailAddress).toEqual(c.defaultEmailAddress);
    expectProblem(await get(t, `/customers/${c.id}/email-addresses/${c.defaultInvoiceEmailAddress.id}`), 404);
  });

  it.each([
    { name: 'an invalid address', body: { email: 'nope', type: 'invoice' }, path: 'email' },
    { name: 'a missing address', body: { type: 'invoice' }, path: 'email' },
    { name: 'an unknown type', body: { email: 'a@example.com', type: 'marketing' }, path: 'type' },
    { name: 'a 1-character receiverName', body: { email: 'a@example.com', type: 'invoice', receiverName: 'A' }, path: 'receiverName' },
    { name: 'an unknown field', body: { email: 'a@example.com', type: 'invoice', cc: true }, path: 'cc' },
  ])('422 on create for $name', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect422(await post(t, `/customers/${c.id}/email-addresses`, body), [path]);
    expect(await countRows('customer_email_addresses', t)).toBe(1);
  });
});

describe('customer groups and contact persons', () => {
  const resources = [
    {
      path: '/customer-groups',
      field: 'customerGroup',
      create: { name: 'Resellers', description: 'Sell our product' },
      update: { name: 'Partners', description: null },
      invalid: { body: { name: 'R' }, path: 'name' },
      embedded: (r: any) => ({ id: r.id, name: r.name, description: r.description }),
    },
    {
      path: '/contact-persons',
      field: 'contactPerson',
      create: { firstName: 'Sam', lastName: 'Seller', email: 'sam@seller.example', avatar: null },
      update: { firstName: 'Samantha', lastName: 'Seller', email: 'samantha@seller.example', avatar: 'https://img.example/s.png' },
      invalid: { body: { firstName: 'Sam', lastName: 'Seller', email: 'not-an-email' }, path: 'email' },
      embedded: (r: any) => ({ id: r.id, firstName: r.firstName, lastName: r.lastName, email: r.email, avatar: r.avatar }),
    },
  ];

  it.each(resources)('$path: create, list, get, replace, delete', async ({ path, create, update }) => {
    const t = await createTenant();
    const r = await created(post(t, path, create));
    expect(r).toMatchObject({ id: expect.any(String), ...create, createdAt: expect.any(String) });
    const list = await get(t, path);
    expectStatus(list, 200);
    expect(list.body.data).toEqual([r]);
    expect(list.body.meta.pagination).toMatchObject({ totalItems: 1, pageTotalItems: 1 });
    expect((await get(t, `${path}/${r.id}`)).body).toEqual(r);
    const changed = await put(t, `${path}/${r.id}`, update);
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({ id: r.id, ...update });
    expect((await get(t, `${path}/${r.id}`)).body).toMatchObject(update);
    expectStatus(await del(t, `${path}/${r.id}`), 204);
    expectProblem(await get(t, `${path}/${r.id}`), 404);
    expectProblem(await del(t, `${path}/${r.id}`), 404);
    expect((await get(t, path)).body.data).toEqual([]);
  });

  it.each(resources)('$path: 422 for invalid input, 404 for unknown ids and other tenants', async ({ path, create, invalid }) => {
    const t = await createTenant();
    const other = await createTenant();
    expect422(await post(t, path, invalid.body), [invalid.path]);
    expect422(await post(t, path, { ...create, extra: 1 }), ['extra']);
    const foreign = await created(post(other, path, create));
    expectProblem(await get(t, `${path}/${foreign.id}`), 404);
    expectProblem(await put(t, `${path}/${foreign.id}`, create), 404);
    expectProblem(await del(t, `${path}/${foreign.id}`), 404);
    expect((await get(t, path)).body.data).toEqual([]);
    // Nor may a customer of this tenant point to it.
    expect422(await post(t, '/customers', baseBody({ [resources.find((x) => x.path === path)!.field]: foreign.id })), [
      resources.find((x) => x.path === path)!.field,
    ]);
  });

  it.each(resources)('$path: a customer shows it, follows its changes, and blocks its deletion (409)', async ({ path, field, create, update, embedded }) => {
    const t = await createTenant();
    const r = await created(post(t, path, create));
    const c = await createCustomer(t, { [field]: r.id });
    expect(c[field]).toEqual(embedded(r));
    const changed = (await put(t, `${path}/${r.id}`, update)).body;
    expect((await get(t, `/customers/${c.id}`)).body[field]).toEqual(embedded(changed));

    expectProblem(await del(t, `${path}/${r.id}`), 409);
    expectStatus(await get(t, `${path}/${r.id}`), 200);

    // Given as an object with id, and removed with null.
    const other = await created(post(t, path, create));
    expect((await patch(t, `/customers/${c.id}`, { [field]: { id: other.id } })).body[field]).toEqual(embedded(other));
    expectStatus(await del(t, `${path}/${r.id}`), 204);
    expect((await patch(t, `/customers/${c.id}`, { [field]: null })).body[field]).toBeNull();
    expectStatus(await del(t, `${path}/${other.id}`), 204);
  });
});

describe('partners', () => {
  async function setup() {
    const t = await createTenant();
    const partner = await createCustomer(t, { email: 'partner@agency.example', companyName: 'Agency AG', isPartner: true });
    const client = await createCustomer(t, { email: 'client@example.com', firstName: 'Cleo', lastName: 'Client' });
    return { t, partner, client };
  }

  it('assigns a partner, shows {id, name, number, email}, and removes it with null', async () => {
    const { t, partner, client } = await setup();
    expect(partner.isPartner).toBe(true);
    const res = await put(t, `/customers/${client.id}/partner`, { partner: partner.id });
    expectStatus(res, 200);
    const shown = { id: partner.id, name: 'Agency AG', number: partner.customerNumber, email: 'partner@agency.example' };
    expect(res.body.partner).toEqual(shown);
    expect((await get(t, `/customers/${client.id}`)).body.partner).toEqual(shown);
    expect(await eventTypes(t, client.id)).toEqual(['customer.created', 'customer.updated']);

    const removed = await put(t, `/customers/${client.id}/partner`, { partner: null });
    expectStatus(removed, 200);
    expect(removed.body.partner).toBeNull();
    expect((await get(t, `/customers/${client.id}`)).body.partner).toBeNull();
  });

  it('names a person partner by first and last name and follows its changes', async () => {
    const t = await createTenant();
    const partner = await createCustomer(t, { firstName: 'Pia', lastName: 'Partner', isPartner: true });
    const client = await createCustomer(t);
    expect((await put(t, `/customers/${client.id}/partner`, { partner: partner.id })).body.partner.name).toBe('Pia Partner');
    await patch(t, `/customers/${partner.id}`, { email: 'pia@new.example' });
    expect((await get(t, `/customers/${client.id}`)).body.partner).toMatchObject({ email: 'pia@new.example', name: 'Pia Partner' });
  });

  it.each([
    { name: 'a customer that is not a partner', target: 'plain' },
    { name: 'the customer itself', target: 'self' },
    { name: 'an unknown customer', target: 'unknown' },
    { name: 'a customer of another tenant', target: 'foreign' },
  ])('422 on partner for $name', async ({ target }) => {
    const { t, client } = await setup();
    const plain = await createCustomer(t);
    const foreignTenant = await createTenant();
    const foreign = await createCustomer(foreignTenant, { isPartner: true });
    // For "self", the customer is itself a partner, so only the self rule applies.
    const self = await createCustomer(t, { isPartner: true });
    const subject = target === 'self' ? self : client;
    const id = { plain: plain.id, self: self.id, unknown: 'no-such-customer', foreign: foreign.id }[target];
    const res = await put(t, `/customers/${subject.id}/partner`, { partner: id });
    expect422(res, ['partner']);
    expect((await get(t, `/customers/${subject.id}`)).body.partner).toBeNull();
    expect(await eventTypes(t, subject.id)).toEqual(['customer.created']);
  });

  it('422 for a body without partner or with an unknown field', async () => {
    const { t, client, partner } = await setup();
    expect422(await put(t, `/customers/${client.id}/partner`, {}), ['partner']);
    expect422(await put(t, `/customers/${client.id}/partner`, { partner: partner.id, share: 10 }), ['share']);
  });

  it('refuses isPartner false while the partner is assigned (422), allows it afterwards', async () => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    const res = await patch(t, `/customers/${partner.id}`, { isPartner: false });
    expect422(res, ['isPartner']);
    expect((await get(t, `/customers/${partner.id}`)).body.isPartner).toBe(true);
    expect(await eventTypes(t, partner.id)).toEqual(['customer.created']);

    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: null }), 200);
    const ok = await patch(t, `/customers/${partner.id}`, { isPartner: false });
    expectStatus(ok, 200);
    expect(ok.body.isPartner).toBe(false);
  });

  it.each([
    { name: 'PATCH isPartner: null', send: (t: TestTenant, p: any) => patch(t, `/customers/${p.id}`, { isPartner: null }) },
    { name: 'PUT without isPartner', send: (t: TestTenant, p: any) => put(t, `/customers/${p.id}`, { email: p.email, countryCode: p.countryCode, companyName: 'Agency AG' }) },
  ])('keeps a partner in use a partner on $name', async ({ send }) => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    await send(t, partner);
    // Either refused or left as a partner: a customer billed through a non-partner must not arise.
    expect((await get(t, `/customers/${partner.id}`)).body.isPartner).toBe(true);
  });

  it('refuses to delete a partner in use (409)', async () => {
    const { t, partner, client } = await setup();
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    expectProblem(await del(t, `/customers/${partner.id}`), 409);
    expectStatus(await get(t, `/customers/${partner.id}`), 200);
    expect(await eventTypes(t, partner.id)).toEqual(['customer.created']);
  });
});

describe('custom fields resource', () => {
  it('creates, lists, gets, replaces and deletes a definition', async () => {
    const t = await createTenant();
    const f = await created(post(t, '/custom-fields', { name: 'segment', type: 'select', resource: 'customer', options: ['a', 'b'] }));
    expect(f).toMatchObject({ id: expect.any(String), name: 'segment', type: 'select', resource: 'customer', options: ['a', 'b'], required: false });
    const other = await created(post(t, '/custom-fields', { name: 'po', type: 'string', resource: 'invoice' }));
    expect(other.options).toBeNull();

    const all = await get(t, '/custom-fields');
    expectStatus(all, 200);
    expect(all.body.data.map((x: any) => x.id).sort()).toEqual([f.id, other.id].sort());
    expect(all.body.meta.pagination.totalItems).toBe(2);
    expect((await get(t, '/custom-fields?resource=customer')).body.data).toEqual([f]);
    expect((await get(t, `/custom-fields/${f.id}`)).body).toEqual(f);

    const res = await put(t, `/custom-fields/${f.id}`, { name: 'tier', type: 'select', resource: 'customer', options: ['a', 'b', 'c'], required: true });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: f.id, name: 'tier', options: ['a', 'b', 'c'], required: true });
    expect((await get(t, `/custom-fields/${f.id}`)).body).toEqual(res.body);
    // The renamed, now required field applies to customers.
    expect422(await post(t, '/customers', baseBody()), ['customFields.tier']);
    expectStatus(await post(t, '/customers', baseBody({ customFields: { tier: 'c' } })), 201);

    expectStatus(await del(t, `/custom-fields/${f.id}`), 204);
    expectProblem(await get(t, `/custom-fields/${f.id}`), 404);
    expectProblem(await del(t, `/custom-fields/${f.id}`), 404);
  });

  it.each([
    { name: 'a select without options', body: { name: 'x', type: 'select', resource: 'customer' }, path: 'options' },
    { name: 'a select with empty options', body: { name: 'x', type: 'select', resource: 'customer', options: [] }, path: 'options' },
    { name: 'options on a string field', body: { name: 'x', type: 'string', resource: 'customer', options: ['a'] }, path: 'options' },
    { name: 'duplicate options', body: { name: 'x', type: 'select', resource: 'customer', options: ['a', 'a'] }, path: 'options' },
    { name: 'an unknown type', body: { name: 'x', type: 'color', resource: 'customer' }, path: 'type' },
    { name: 'an unknown resource', body: { name: 'x', type: 'string', resource: 'order' }, path: 'resource' },
    { name: 'a name with spaces', body: { name: 'my field', type: 'string', resource: 'customer' }, path: 'name' },
    { name: 'a name starting with a digit', body: { name: '1st', type: 'string', resource: 'customer' }, path: 'name' },
    { name: 'an unknown field', body: { name: 'x', type: 'string', resource: 'customer', label: 'X' }, path: 'label' },
  ])('422 for $name', async ({ body, path }) => {
    const t = await createTenant();
    expect422(await post(t, '/custom-fields', body), [path]);
    expect((await get(t, '/custom-fields')).body.meta.pagination.totalItems).toBe(0);
  });

  it('keeps the type and the resource of a definition (422)', async () => {
    const t = await createTenant();
    const f = await created(post(t, '/custom-fields', { name: 'score', type: 'number', resource: 'customer' }));
    expect422(await put(t, `/custom-fields/${f.id}`, { name: 'score', type: 'string', resource: 'customer' }), ['type']);
    expect422(await put(t, `/custom-fields/${f.id}`, { name: 'score', type: 'number', resource: 'invoice' }), ['resource']);
    expect((await get(t, `/custom-fields/${f.id}`)).body).toEqual(f);
  });

  it('wants names unique per resource (422), not across resources or tenants', async () => {
    const t = await createTenant();
    await created(post(t, '/custom-fields', { name: 'ref', type: 'string', resource: 'customer' }));
    const dup = await post(t, '/custom-fields', { name: 'ref', type: 'number', resource: 'customer' });
    expect422(dup, ['name']);
    expect(violations(dup)).toEqual(['name: not_unique']);
    await created(post(t, '/custom-fields', { name: 'ref', type: 'string', resource: 'invoice' }));
    const second = await created(post(t, '/custom-fields', { name: 'ref2', type: 'string', resource: 'customer' }));
    expect422(await put(t, `/custom-fields/${second.id}`, { name: 'ref', type: 'string', resource: 'customer' }), ['name']);
    const other = await createTenant();
    await created(post(other, '/custom-fields', { name: 'ref', type: 'string', resource: 'customer' }));
  });

  it('404 for the definition of another tenant', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const f = await created(post(other, '/custom-fields', { name: 'ref', type: 'string', resource: 'customer' }));
    expectProblem(await get(t, `/custom-fields/${f.id}`), 404);
    expectProblem(await del(t, `/custom-fields/${f.id}`), 404);
    expectStatus(await get(other, `/custom-fields/${f.id}`), 200);
  });
});

describe('settings', () => {
  const DEFAULTS = [
    { key: 'requiresManualInvoiceApproval', value: false },
    { key: 'accounting.useDebitorAccounts', value: false },
    { key: 'accounting.debitorAccountStart', value: 10000 },
    { key: 'customer.numberFormat', value: 'C-{number:5}' },
    { key: 'invoice.numberFormat', value: 'RE-{year}-{number:5}' },
    { key: 'invoice.paymentTermDays', value: 14 },
    { key: 'dunning.enabled', value: true },
  ];

  it('GET /settings lists every known key once, with its default', async () => {
    const t = await createTenant();
    const res = await get(t, '/settings');
    expectStatus(res, 200);
    expect(res.body.settings).toEqual(expect.arrayContaining(DEFAULTS));
    const keys = res.body.settings.map((s: any) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('PATCH /settings changes the given keys, for this tenant only', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const res = await patch(t, '/settings', {
      settings: [
        { key: 'requiresManualInvoiceApproval', value: true },
        { key: 'invoice.paymentTermDays', value: 30 },
        { key: 'invoice.numberFormat', value: 'INV/{year}/{number}' },
      ],
    });
    expectStatus(res, 200);
    const expected = [
      { key: 'requiresManualInvoiceApproval', value: true },
      { key: 'invoice.paymentTermDays', value: 30 },
      { key: 'invoice.numberFormat', value: 'INV/{year}/{number}' },
      { key: 'dunning.enabled', value: true },
    ];
    expect(res.body.settings).toEqual(expect.arrayContaining(expected));
    expect((await get(t, '/settings')).body.settings).toEqual(expect.arrayContaining(expected));
    expect((await get(other, '/settings')).body.settings).toEqual(expect.arrayContaining(DEFAULTS));
  });

  it.each([
    { name: 'an unknown key', settings: [{ key: 'colour', value: 'red' }], path: 'settings[0].key' },
    { name: 'a string for a boolean', settings: [{ key: 'requiresManualInvoiceApproval', value: 'yes' }], path: 'settings[0].value' },
    { name: 'a string for a number', settings: [{ key: 'invoice.paymentTermDays', value: '14' }], path: 'settings[0].value' },
    { name: 'a number out of range', settings: [{ key: 'invoice.paymentTermDays', value: 366 }], path: 'settings[0].value' },
    { name: 'an invoice number format without {number}', settings: [{ key: 'invoice.numberFormat', value: 'RE-{year}' }], path: 'settings[0].value' },
    { name: 'an invoice number format with an unknown placeholder', settings: [{ key: 'invoice.numberFormat', value: '{number}-{week}' }], path: 'settings[0].value' },
    { name: 'a customer number format without {number}', settings: [{ key: 'customer.numberFormat', value: 'C-' }], path: 'settings[0].value' },
    {
      name: 'a bad second entry after a good one',
      settings: [
        { key: 'dunning.enabled', value: false },
        { key: 'dunning.enabled2', value: false },
      ],
      path: 'settings[1].key',
    },
  ])('PATCH /settings: 422 for $name, and nothing changes', async ({ settings, path }) => {
    const t = await createTenant();
    const res = await patch(t, '/settings', { settings });
    expect422(res, [path]);
    expect((await get(t, '/settings')).body.settings).toEqual(expect.arrayContaining(DEFAULTS));
  });

  it('PATCH /settings: 422 for each bad entry of one request', async () => {
    const t = await createTenant();
    const res = await patch(t, '/settings', {
      settings: [
        { key: 'nope', value: 1 },
        { key: 'dunning.enabled', value: 'no' },
        { key: 'invoice.numberFormat', value: 'RE' },
      ],
    });
    expect422(res, ['settings[0].key', 'settings[1].value', 'settings[2].value']);
  });

  it('PATCH /settings: 415 for application/json', async () => {
    const t = await createTenant();
    const res = await api('/settings', { token: t.key, method: 'PATCH', body: { settings: [{ key: 'dunning.enabled', value: false }] }, contentType: 'application/json' });
    expectProblem(res, 415);
    expect((await get(t, '/settings')).body.settings).toContainEqual({ key: 'dunning.enabled', value: true });
  });

  describe('customer billing settings', () => {
    it('starts as null (inherit) and takes true, false and null', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      const path = `/customers/${c.id}/settings/billing`;
      const initial = await get(t, path);
      expectStatus(initial, 200);
      expect(initial.body).toEqual({ requiresManualInvoiceApproval: null });
      for (const value of [true, false, null]) {
        const res = await patch(t, path, { requiresManualInvoiceApproval: value });
        expectStatus(res, 200);
        expect(res.body).toEqual({ requiresManualInvoiceApproval: value });
        expect((await get(t, path)).body).toEqual({ requiresManualInvoiceApproval: value });
      }
      expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated', 'customer.updated', 'customer.updated']);
    });

    it('an empty merge patch changes nothing', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      const path = `/customers/${c.id}/settings/billing`;
      expectStatus(await patch(t, path, { requiresManualInvoiceApproval: true }), 200);
      const res = await patch(t, path, {});
      expectStatus(res, 200);
      expect(res.body).toEqual({ requiresManualInvoiceApproval: true });
    });

    it.each([
      { name: 'a string', body: { requiresManualInvoiceApproval: 'yes' }, path: 'requiresManualInvoiceApproval' },
      { name: 'an unknown key', body: { requiresManualInvoiceApproval: true, autoSend: true }, path: 'autoSend' },
    ])('422 for $name', async ({ body, path }) => {
      const t = await createTenant();
      const c = await createCustomer(t);
      expect422(await patch(t, `/customers/${c.id}/settings/billing`, body), [path]);
      expect((await get(t, `/customers/${c.id}/settings/billing`)).body).toEqual({ requiresManualInvoiceApproval: null });
      expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
    });

    it('404 for an unknown customer, 415 for application/json', async () => {
      const t = await createTenant();
      const c = await createCustomer(t);
      expectProblem(await get(t, '/customers/unknown-id/settings/billing'), 404);
      expectProblem(await patch(t, '/customers/unknown-id/settings/billing', { requiresManualInvoiceApproval: true }), 404);
      const res = await api(`/customers/${c.id}/settings/billing`, {
        token: t.key,
        method: 'PATCH',
        body: { requiresManualInvoiceApproval: true },
        contentType: 'application/json',
      });
      expectProblem(res, 415);
    });
  });
});

describe('outbox events', () => {
  it('writes one event per change over a customer’s life, with the resource as data', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    await patch(t, `/customers/${c.id}`, { firstName: 'Berta' });
    await put(t, `/customers/${c.id}/archive`);
    await put(t, `/customers/${c.id}/unarchive`);
    await del(t, `/customers/${c.id}`);

    const evts = await eventsOf(t);
    expect(evts.map((e) => [e.type, e.resourceId])).toEqual([
      ['customer.created', c.id],
      ['customer.updated', c.id],
      ['customer.archived', c.id],
      ['customer.unarchived', c.id],
      ['customer.deleted', c.id],
    ]);
    expect(evts[0]!.data).toMatchObject({ id: c.id, customerNumber: c.customerNumber, email: c.email, firstName: 'Anna' });
    expect(evts[1]!.data).toMatchObject({ id: c.id, firstName: 'Berta' });
    expect(evts[2]!.data).toMatchObject({ id: c.id, status: 'STATUS_ARCHIVED' });
    expect(evts[3]!.data).toMatchObject({ id: c.id, status: 'STATUS_ACTIVE' });
    expect(evts[4]!.data).toMatchObject({ id: c.id, customerNumber: c.customerNumber });
    const [row] = await query<{ version: string; created_at: string }>('SELECT version, created_at FROM events WHERE tenant_id = ? LIMIT 1', t.id);
    expect(row!.version).toEqual(expect.any(String));
    expect(row!.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('writes no event for refused changes (422, 409, 404)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await env.DB.prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), t.id, c.id, 'TYPE_INVOICE', 'STATUS_DRAFT', null, new Date().toISOString())
      .run();
    const refused = [
      await post(t, '/customers', baseBody({ email: c.email })),
      await patch(t, `/customers/${c.id}`, { firstName: 'X' }),
      await put(t, `/customers/${c.id}`, { email: 'bad', countryCode: 'DE' }),
      await put(t, `/customers/${c.id}/unarchive`),
      await del(t, `/customers/${c.id}`),
      await put(t, `/customers/${c.id}/partner`, { partner: c.id }),
      await post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', zip: '1' }),
      await post(t, `/customers/${c.id}/email-addresses`, { email: 'nope', type: 'invoice' }),
      await patch(t, `/customers/${c.id}/settings/billing`, { requiresManualInvoiceApproval: 'yes' }),
      await patch(t, '/customers/unknown-id', { firstName: 'Xavier' }),
    ];
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 409, 409, 422, 422, 422, 422, 404]);
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });

  it('writes customer.updated for address, e-mail, partner and billing-setting changes', async () => {
    const t = await createTenant();
    const partner = await createCustomer(t, { isPartner: true });
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', city: 'Bonn' }));
    await put(t, `/customers/${c.id}/addresses/${a.id}`, { type: 'TYPE_INVOICE', city: 'Köln' });
    const e = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'bill@example.com', type: 'invoice' }));
    await del(t, `/customers/${c.id}/email-addresses/${e.id}`);
    await put(t, `/customers/${c.id}/partner`, { partner: partner.id });
    await patch(t, `/customers/${c.id}/settings/billing`, { requiresManualInvoiceApproval: true });
    const evts = await eventsOf(t, c.id);
    expect(evts.map((x) => x.type)).toEqual(['customer.created', ...Array(6).fill('customer.updated')]);
    expect(evts[2]!.data.defaultInvoiceAddress).toMatchObject({ id: a.id, city: 'Köln' });
    expect(evts[5]!.data.partner).toMatchObject({ id: partner.id });
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
