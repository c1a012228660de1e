import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { createTenant } from '../support/builders';
import { cartGet, checkoutCatalogue, openCart } from './builders';

// GET /public/checkout/cart/{id}: the view as the cart's object holds it, passed through as text;
// what is not that read answers as any route does; a cart whose object lost its state is restored
// from D1.

async function openedCart() {
  const t = await createTenant();
  await checkoutCatalogue(t);
  const cart = (await openCart(t)).body;
  return { t, cart };
}

describe('the public cart read', () => {
  it('answers the cart as JSON with a request id, echoing a sane one the client sent', async () => {
    const { cart } = await openedCart();
    const res = await cartGet(cart.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(cart);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await api(`/public/checkout/cart/${cart.id}`, { headers: { 'X-Request-Id': 'trace-42' } });
    expect(echoed.headers.get('X-Request-Id')).toBe('trace-42');
    const replaced = await api(`/public/checkout/cart/${cart.id}`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(replaced.headers.get('X-Request-Id')).not.toBe('bad id with spaces');
  });

  it('answers what is not a plain read of a known cart as any route does: unknown parameters, other paths, other methods, unknown carts', async () => {
    const { cart } = await openedCart();
    expect((await api(`/public/checkout/cart/${cart.id}?x=1`)).status).toBe(400);
    expectProblem(await api(`/elsewhere/public/checkout/cart/${cart.id}`), 404);
    expectProblem(await api(`/public/checkout/cart/${cart.id}/`), 404);
    expect((await api(`/public/checkout/cart/${cart.id}`, { method: 'POST', body: {} })).status).toBe(404);
    expectProblem(await cartGet('B'.repeat(32)), 404);
    expectProblem(await cartGet('short'), 404);
  });

  it('restores a cart whose object lost its state from D1, through the routed read', async () => {
    const { cart } = await openedCart();
    // The object forgets everything (as after a storage loss); D1 still has the cart.
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(env.CART.get(env.CART.idFromName(cart.id)), async (obj, state) => {
      await state.storage.deleteAll();
      (obj as unknown as { cached: unknown }).cached = undefined;
    });
    const res = await cartGet(cart.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(cart);
    // The object has it again: the next read comes from it, alike.
    expect((await cartGet(cart.id)).body).toEqual(cart);
  });
});
