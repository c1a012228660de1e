import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expect422, expectStatus, get, put, unique, violations } from '../support/api';
import { createTenant } from '../support/builders';
import { checkoutCatalogue } from './builders';

// The tenant's public slug: set by the tenant, unique across tenants, in its page URLs instead of
// its id; URLs by id keep working.

const slugOf = () => unique('shop').toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').slice(0, 40);
const openPage = async (path: string) => (await exports.default.fetch(new Request(`http://billing.test${path}`, { redirect: 'manual' }))).status;

describe('tenant slugs', () => {
  it('names the tenant in its link URLs once set; the id keeps working', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    expect((await get(t, '/settings/tenant-slug')).body).toEqual({ slug: null });
    expect(new URL((await get(t, '/checkout-links')).body.data[0].url).pathname).toBe(`/checkout/${t.id}/team`);

    const slug = slugOf();
    const set = await put(t, '/settings/tenant-slug', { slug: slug.toUpperCase() });
    expectStatus(set, 200);
    expect(set.body).toEqual({ slug });
    expect((await get(t, '/settings/tenant-slug')).body).toEqual({ slug });
    const link = (await get(t, '/checkout-links')).body.data[0];
    expect(new URL(link.url).pathname).toBe(`/checkout/${slug}/team`);

    // The page and the public cart API by slug, and by id as before.
    expect(await openPage(`/checkout/${slug}/team`)).toBe(303);
    expect(await openPage(`/checkout/${t.id}/team`)).toBe(303);
    expect((await api(`/public/checkout/links/${slug}/team/cart`, { method: 'POST' })).status).toBe(201);
    expect((await api(`/public/checkout/links/${t.id}/team/cart`, { method: 'POST' })).status).toBe(201);

    // Changed: the old slug names nobody any more; removed: the id again.
    const next = slugOf();
    expectStatus(await put(t, '/settings/tenant-slug', { slug: next }), 200);
    expect(await openPage(`/checkout/${slug}/team`)).toBe(404);
    expect(await openPage(`/checkout/${next}/team`)).toBe(303);
    expectStatus(await put(t, '/settings/tenant-slug', { slug: null }), 200);
    expect(new URL((await get(t, '/checkout-links')).body.data[0].url).pathname).toBe(`/checkout/${t.id}/team`);
    expect(await openPage(`/checkout/${next}/team`)).toBe(404);
  });

  it('is unique across tenants', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const slug = slugOf();
    expectStatus(await put(a, '/settings/tenant-slug', { slug }), 200);
    const taken = await put(b, '/settings/tenant-slug', { slug });
    expect422(taken, ['slug']);
    expect(violations(taken)).toEqual(['slug: not_unique']);
    expect((await get(b, '/settings/tenant-slug')).body).toEqual({ slug: null });
    // Setting one's own slug again is no conflict.
    expectStatus(await put(a, '/settings/tenant-slug', { slug }), 200);
  });

  it.each([
    ['ab', 'invalid_slug'],
    ['-shop', 'invalid_slug'],
    ['shop-', 'invalid_slug'],
    ['my--shop', 'invalid_slug'],
    ['my shop', 'invalid_slug'],
    ['my_shop', 'invalid_slug'],
    ['schön', 'invalid_slug'],
    ['x'.repeat(51), 'invalid_slug'],
    ['0194a3b2-7c1d-7e00-8000-000000000000', 'invalid_slug'],
    ['checkout', 'reserved'],
    ['carts', 'reserved'],
    ['Admin', 'reserved'],
  ])('refuses %j (%s)', async (slug, code) => {
    const t = await createTenant();
    const res = await put(t, '/settings/tenant-slug', { slug });
    expect422(res, ['slug']);
    expect(violations(res)).toEqual([`slug: ${code}`]);
  });
});
