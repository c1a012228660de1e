import { describe, expect, it } from 'vitest';
import { del, expect422, expectProblem, expectStatus, get, patch, post, put } from '../support/api';
import { created, createCustomer, createTenant } from '../support/builders';
import { baseBody } from './builders';

// Customer groups and contact persons, and how customers refer to them. Storage is shared by every
// test file, so every test works in a fresh tenant of its own.

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
