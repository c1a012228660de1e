import { describe, expect, it } from 'vitest';
import { api, del, expect422, expectProblem, expectStatus, get, patch, post, put } from '../support/api';
import { createTenant, keyWith } from '../support/builders';
import { checkoutCatalogue, openCart } from './builders';

describe('/checkout-links', () => {
  it('creates, reads, lists, changes, disables and deletes a link in the spec shape', async () => {
    const t = await createTenant();
    const { link, product, price, plan } = await checkoutCatalogue(t);
    // The price plan names the links that sell it.
    expect((await get(t, `/price-plans/${price.id}`)).body.checkoutLinkIds).toEqual([link.id]);
    expect(link).toMatchObject({
      slug: 'team',
      isEnabled: true,
      url: `http://billing.test/checkout/${t.id}/team`,
      afterCheckout: { action: 'confirmation_message', confirmationMessage: 'Thank you!', url: null, backToProviderUrl: null },
      options: { trialDays: 0, allowCoupons: true, quantityEditable: true, forceCompany: false },
      items: [
        {
          type: 'product',
          product: { id: product.id, name: 'Seats' },
          quantity: 2,
          minQuantity: 1,
          maxQuantity: 10,
          plan: { id: plan.id, code: 'team', name: 'Team' },
          price: { id: price.id, type: 'recurring', calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' },
          periods: { contractPeriod: null, cancellationPeriod: null },
        },
      ],
    });
    expect((await get(t, `/checkout-links/${link.id}`)).body).toEqual(link);
    expect((await get(t, '/checkout-links')).body.data.map((l: { id: string }) => l.id)).toEqual([link.id]);

    // Fynn's form spelling: flags and numbers as strings.
    const changed = await patch(t, `/checkout-links/${link.id}`, { slug: 'team-2026', options: { trialDays: '14', forceCompany: '1' } });
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({ slug: 'team-2026', options: { trialDays: 14, forceCompany: true, allowCoupons: true }, url: `http://billing.test/checkout/${t.id}/team-2026` });

    expectStatus(await put(t, `/checkout-links/${link.id}/disable`), 200);
    expectProblem(await openCart(t, 'team-2026'), 404);
    expect((await put(t, `/checkout-links/${link.id}/enable`)).body.isEnabled).toBe(true);
    expectStatus(await openCart(t, 'team-2026'), 201);

    expectStatus(await del(t, `/checkout-links/${link.id}`), 204);
    expectProblem(await get(t, `/checkout-links/${link.id}`), 404);
    expectProblem(await openCart(t, 'team-2026'), 404);
  });

  it('sells only active price plans of the tenant, under a unique URL-safe slug', async () => {
    const t = await createTenant();
    const { price, product, plan } = await checkoutCatalogue(t);
    const other = await createTenant();
    const theirs = await checkoutCatalogue(other);
    const draftPlan = (await post(t, '/plans', { family: plan.family, code: 'draft', name: 'Draft', items: [{ product: product.id, pricePlan: price.id, quantity: '1' }] })).body;
    const item = { product: product.id, pricePlan: price.id };
    const cases: [string, unknown, string[]][] = [
      ['a taken slug', { slug: 'team', items: [item] }, ['slug']],
      ['a slug that is no URL segment', { slug: 'a/b c', items: [item] }, ['slug']],
      ['another tenant’s product and price plan', { items: [{ product: theirs.product.id, pricePlan: theirs.price.id }] }, ['items[0].product', 'items[0].pricePlan']],
      ['a plan that is not active', { items: [{ ...item, plan: draftPlan.id }] }, ['items[0].plan']],
      ['a quantity outside its bounds', { items: [{ ...item, quantity: 11, maxQuantity: 10 }] }, ['items[0].quantity']],
      ['no items', { items: [] }, ['items']],
      ['a redirect without URL', { afterCheckout: { action: 'redirect' }, items: [item] }, ['afterCheckout.url']],
    ];
    for (const [, body, paths] of cases) expect422(await post(t, '/checkout-links', body), paths);
    expectStatus(await put(t, `/price-plans/${price.id}/archive`), 200);
    expect422(await post(t, '/checkout-links', { items: [item] }), ['items[0].pricePlan']);
  });

  it('needs checkout-link permissions', async () => {
    const t = await createTenant();
    const reader = await keyWith(t, ['checkout-link:read']);
    expectStatus(await api('/checkout-links', { token: reader }), 200);
    expectProblem(await api('/checkout-links', { token: reader, body: { items: [] } }), 403);
  });
});
