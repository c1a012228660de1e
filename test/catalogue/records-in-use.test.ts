import { describe, it } from 'vitest';
import { del, expectProblem, expectStatus, get, patch, post, put, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, ok, refusedUnchanged } from '../support/builders';
import { createPricePlan, createProduct, redeem, refs, sellable } from './builders';

// A record in use cannot be deleted (409); the refused delete changes nothing, neither in the
// tenant nor anywhere else, and once the use is gone the delete works.
// Storage is shared by every test file, so every test works in a fresh tenant of its own.

interface InUseCase {
  name: string;
  /** Makes a record that is in use; returns its URL, a sibling of the same kind and how to end the use. */
  setup: (t: TestTenant) => Promise<{ url: string; sibling: string; release: () => Promise<unknown> }>;
  /** Makes a record of the same kind in another tenant (it must survive). */
  elsewhere: (t: TestTenant) => Promise<string>;
}

const inUseCases: InUseCase[] = [
  {
    name: 'a product family used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const sibling = await created(post(t, '/product-families', { name: 'Sibling' }));
      return { url: `/product-families/${r.family.id}`, sibling: `/product-families/${sibling.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/product-families/${(await created(post(t, '/product-families', { name: 'Elsewhere' }))).id}`,
  },
  {
    name: 'a product family used by a plan',
    setup: async (t) => {
      const family = await created(post(t, '/product-families', { name: 'Plans only' }));
      const plan = await created(post(t, '/plans', { family: family.id, code: 'p1', name: 'P1' }));
      const sibling = await created(post(t, '/product-families', { name: 'Sibling' }));
      return { url: `/product-families/${family.id}`, sibling: `/product-families/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => `/product-families/${(await created(post(t, '/product-families', { name: 'Elsewhere' }))).id}`,
  },
  {
    name: 'a unit used by a measurement',
    setup: async (t) => {
      const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
      const m = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'sum', type: 'metered' }));
      const sibling = await created(post(t, '/units', { name: 'Other', code: 'other' }));
      return { url: `/units/${unit.id}`, sibling: `/units/${sibling.id}`, release: () => del(t, `/measurements/${m.id}`) };
    },
    elsewhere: async (t) => `/units/${(await created(post(t, '/units', { name: 'Seat', code: 'seat' }))).id}`,
  },
  {
    name: 'a measurement used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      return { url: `/measurements/${r.measurement.id}`, sibling: `/measurements/${r.metered.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/measurements/${(await refs(t)).measurement.id}`,
  },
  {
    name: 'a cost centre used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const cc = await created(post(t, '/cost-centres', { name: 'Sales', code: 'CC-1' }));
      const sibling = await created(post(t, '/cost-centres', { name: 'Other', code: 'CC-2' }));
      const p = await createProduct(t, r, { costCentre: cc.id });
      return { url: `/cost-centres/${cc.id}`, sibling: `/cost-centres/${sibling.id}`, release: () => patch(t, `/catalogue/products/${p.id}`, { costCentre: null }) };
    },
    elsewhere: async (t) => `/cost-centres/${(await created(post(t, '/cost-centres', { name: 'Sales', code: 'CC-1' }))).id}`,
  },
  {
    name: 'a tax group used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const sibling = await created(post(t, '/tax-groups', { type: 'reduced' }));
      return { url: `/tax-groups/${r.taxGroup.id}`, sibling: `/tax-groups/${sibling.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/tax-groups/${(await created(post(t, '/tax-groups', { type: 'standard' }))).id}`,
  },
  {
    name: 'a tax group used by a tax',
    setup: async (t) => {
      const group = await created(post(t, '/tax-groups', { type: 'standard' }));
      const tax = await created(post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'X' }));
      const sibling = await created(post(t, '/tax-groups', { type: 'reduced' }));
      return { url: `/tax-groups/${group.id}`, sibling: `/tax-groups/${sibling.id}`, release: () => del(t, `/taxes/${tax.id}`) };
    },
    elsewhere: async (t) => `/tax-groups/${(await created(post(t, '/tax-groups', { type: 'standard' }))).id}`,
  },
  {
    name: 'a product used by a price plan',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const pp = await createPricePlan(t, p.id);
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return { url: `/catalogue/products/${p.id}`, sibling: `/catalogue/products/${sibling.id}`, release: () => del(t, `/price-plans/${pp.id}`) };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a product that is the origin product of a plan',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r, { type: 'plan' });
      const plan = await created(post(t, '/plans', { family: r.family.id, code: 'origin', name: 'Origin', originProduct: p.id }));
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return { url: `/catalogue/products/${p.id}`, sibling: `/catalogue/products/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a product in the items of a plan',
    setup: async (t) => {
      const { r, product, pricePlan, plan } = await sellable(t);
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return {
        url: `/catalogue/products/${product.id}`,
        sibling: `/catalogue/products/${sibling.id}`,
        release: async () => {
          await del(t, `/plans/${plan.id}`);
          await del(t, `/price-plans/${pricePlan.id}`);
        },
      };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a price plan in the items of a plan',
    setup: async (t) => {
      const { product, pricePlan, plan } = await sellable(t);
      const sibling = await createPricePlan(t, product.id);
      return { url: `/price-plans/${pricePlan.id}`, sibling: `/price-plans/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => {
      const r = await refs(t);
      return `/price-plans/${(await createPricePlan(t, (await createProduct(t, r)).id)).id}`;
    },
  },
  {
    name: 'an active plan',
    setup: async (t) => {
      const { r, plan } = await sellable(t);
      await ok(put(t, `/plans/${plan.id}/activate`));
      const sibling = await created(post(t, '/plans', { family: r.family.id, code: 'sibling', name: 'Sibling' }));
      // Archiving does not make it deletable: only drafts are. Nothing releases an active plan.
      return { url: `/plans/${plan.id}`, sibling: `/plans/${sibling.id}`, release: async () => null };
    },
    elsewhere: async (t) => `/plans/${(await sellable(t)).plan.id}`,
  },
  {
    name: 'a redeemed coupon',
    setup: async (t) => {
      const customer = await createCustomer(t);
      const c = await created(post(t, '/coupons', { code: 'USED', name: 'Used', type: 'percentage', percentage: 10, frequency: 'once' }));
      const sibling = await created(post(t, '/coupons', { code: 'FRESH', name: 'Fresh', type: 'percentage', percentage: 10, frequency: 'once' }));
      await redeem(t, c.id, customer.id);
      return {
        url: `/coupons/${c.id}`,
        sibling: `/coupons/${sibling.id}`,
        release: async () => (await dbOf(t)).prepare('DELETE FROM coupon_redemptions WHERE tenant_id = ? AND coupon_id = ?').bind(t.id, c.id).run(),
      };
    },
    elsewhere: async (t) => `/coupons/${(await created(post(t, '/coupons', { code: 'USED', name: 'Used', type: 'percentage', percentage: 10, frequency: 'once' }))).id}`,
  },
];

describe('deleting records in use', () => {
  it.each(inUseCases)('409 for $name; nothing else is deleted, in this tenant or any other', async ({ setup, elsewhere }) => {
    const bystander = await createTenant();
    const foreign = await elsewhere(bystander);
    const t = await createTenant();
    const { url, sibling, release } = await setup(t);
    const res = await refusedUnchanged(t, url, () => del(t, url));
    // Only drafts of plans can be deleted: for an active plan the 409 is about its state, not a reference.
    expectProblem(res, 409, url.startsWith('/plans/') ? undefined : '/problems/in-use');
    expectStatus(await get(t, url), 200);
    expectStatus(await get(t, sibling), 200);
    expectStatus(await get(bystander, foreign), 200);
    await release();
    const again = await del(t, url);
    if (url.startsWith('/plans/')) expectProblem(again, 409);
    else expectStatus(again, 204);
    expectStatus(await get(t, sibling), 200);
    expectStatus(await get(bystander, foreign), 200);
  });
});
