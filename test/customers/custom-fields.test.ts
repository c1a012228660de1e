import { describe, expect, it } from 'vitest';
import { del, expect422, expectProblem, expectStatus, get, post, put, violations } from '../support/api';
import { created, createTenant } from '../support/builders';
import { baseBody } from './builders';

// The custom field definitions (/custom-fields). Storage is shared by every test file, so every
// test works in a fresh tenant of its own.

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
