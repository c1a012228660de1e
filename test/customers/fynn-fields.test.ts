import { describe, expect, it } from 'vitest';
import { expect422, expectStatus, get, patch, post, put, violations } from '../support/api';
import { created, createCustomer, createTenant } from '../support/builders';
import { baseBody, defineField } from './builders';

// Fynn's names and encodings of customer fields: `datevId` (Fynn's name for ledgerId), customFields
// as a JSON-encoded string (as n8n sends its json parameters), empty strings for unset options.

describe('datevId, Fynn’s name for ledgerId', () => {
  it('is accepted on create and shown next to ledgerId', async () => {
    const t = await createTenant();
    const c = await created(post(t, '/customers', baseBody({ datevId: '10042' })));
    expect(c).toMatchObject({ ledgerId: '10042', datevId: '10042' });
    expect((await get(t, `/customers/${c.id}`)).body).toMatchObject({ ledgerId: '10042', datevId: '10042' });
    expect((await created(post(t, '/customers', baseBody({ email: 'two@example.com', ledgerId: 'L-2', datevId: 'L-2' })))).ledgerId).toBe('L-2');
  });

  it('422 when datevId and ledgerId disagree, or datevId breaks the ledgerId rules', async () => {
    const t = await createTenant();
    const res = await post(t, '/customers', baseBody({ ledgerId: 'L-1', datevId: 'L-2' }));
    expect422(res, ['datevId']);
    expect(violations(res)).toEqual(['datevId: conflicting_alias']);
    expect422(await post(t, '/customers', baseBody({ datevId: 'x' })), ['datevId']);
  });

  it('is generated as ledgerId is when debitor accounts are on', async () => {
    const t = await createTenant();
    expectStatus(await patch(t, '/settings', { settings: [{ key: 'accounting.useDebitorAccounts', value: true }] }), 200);
    expect((await createCustomer(t)).datevId).toBe('10000');
  });

  it('changes ledgerId through PUT and PATCH; null clears it', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { ledgerId: 'L-1' });
    expect((await put(t, `/customers/${c.id}`, { datevId: 'D-2' })).body).toMatchObject({ ledgerId: 'D-2', datevId: 'D-2' });
    expect((await patch(t, `/customers/${c.id}`, { datevId: 'D-3' })).body).toMatchObject({ ledgerId: 'D-3', datevId: 'D-3' });
    expect((await patch(t, `/customers/${c.id}`, { datevId: null })).body).toMatchObject({ ledgerId: null, datevId: null });
    expect422(await patch(t, `/customers/${c.id}`, { ledgerId: 'A-1', datevId: 'B-1' }), ['datevId']);
    expect((await get(t, `/customers/${c.id}`)).body.ledgerId).toBeNull();
  });
});

describe('customFields as a JSON-encoded string', () => {
  it('is read as the object it encodes, on create and on PUT', async () => {
    const t = await createTenant();
    await defineField(t, 'field1', 'string');
    await defineField(t, 'score', 'number');
    const c = await created(post(t, '/customers', baseBody({ customFields: '{"field1":"value1"}' })));
    expect(c.customFields).toEqual({ field1: 'value1' });
    const res = await put(t, `/customers/${c.id}`, { countryCode: 'DE', customFields: '{"score":7}' });
    expectStatus(res, 200);
    // PUT merges custom fields member by member; n8n's default '{}' changes nothing.
    expect(res.body.customFields).toEqual({ field1: 'value1', score: 7 });
    expect((await put(t, `/customers/${c.id}`, { customFields: '{}' })).body.customFields).toEqual({ field1: 'value1', score: 7 });
    expect((await put(t, `/customers/${c.id}`, { customFields: { field1: null } })).body.customFields).toEqual({ score: 7 });
    const plain = await createCustomer(t);
    expect((await put(t, `/customers/${plain.id}`, { customFields: '{}' })).body.customFields).toBeNull();
  });

  it.each([
    { name: 'not JSON', value: '{field1: value1}' },
    { name: 'a JSON array', value: '["value1"]' },
    { name: 'an unknown field', value: '{"nope":"x"}', path: 'customFields.nope' },
  ])('422 for a string that is $name', async ({ value, path }) => {
    const t = await createTenant();
    await defineField(t, 'field1', 'string');
    expect422(await post(t, '/customers', baseBody({ customFields: value })), [path ?? 'customFields']);
  });
});

describe('empty strings for unset options', () => {
  it('count as absent: gender, language, taxExempt, currencyCode, timeZone', async () => {
    const t = await createTenant();
    const c = await created(post(t, '/customers', baseBody({ gender: '', language: '', taxExempt: '', currencyCode: '', timeZone: '' })));
    expect(c).toMatchObject({ gender: null, language: 'de', taxExempt: 'auto', currencyCode: null, timeZone: 'Europe/Berlin' });
  });
});

describe('countryCode on create', () => {
  it.each([{ body: {} }, { body: { countryCode: null } }, { body: { countryCode: '' } }])('defaults to the tenant’s country for $body', async ({ body }) => {
    const t = await createTenant({ countryCode: 'AT' });
    const c = await created(post(t, '/customers', { email: 'ada@example.com', ...body }));
    expect(c.countryCode).toBe('AT');
    expect(c.defaultAddress.countryCode).toBe('AT');
  });
});
