import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import type { CartObjectApi, StoredCart, CartWriteResult } from './cart-object-api';

const KEY = 'cart';

/**
 * One per public cart, named by the cart's id (docs: checkout, low latency). It holds the cart and
 * its computed price, so a read is answered from the object's memory (or its own storage after an
 * eviction) without a D1 query. Writes are compare-and-set on the cart's version: of two changes
 * computed from the same version only the first is stored, and the buyer reads its own write as
 * soon as the write returned. The object deletes its storage by alarm once the cart expired.
 * All decisions (prices, validation, completion) are made by the service in the Worker; this
 * object only stores, so the price code runs in one place.
 */
export class CartObject extends DurableObject<Env> implements CartObjectApi {
  private cached: StoredCart | null | undefined;

  private async load(): Promise<StoredCart | null> {
    if (this.cached === undefined) this.cached = (await this.ctx.storage.get<StoredCart>(KEY)) ?? null;
    return this.cached;
  }

  async read(nowMs: number): Promise<StoredCart | null> {
    const cart = await this.load();
    if (!cart) return null;
    // Completed carts stay readable until they expire too; an expired one is gone.
    if (Date.parse(cart.expiresAt) <= nowMs) return null;
    return cart;
  }

  async readView(nowMs: number): Promise<string | null> {
    return (await this.read(nowMs))?.view ?? null;
  }

  async write(expectedVersion: number | null, next: StoredCart): Promise<CartWriteResult> {
    const current = await this.load();
    const actual = current?.version ?? null;
    // D1's guarded write already decided this change; an object that missed an earlier write (it
    // lags behind D1) takes it too, one that is ahead of it refuses.
    const lagging = actual !== null && expectedVersion !== null && actual < expectedVersion;
    if (actual !== expectedVersion && !lagging) return { ok: false, current };
    await this.ctx.storage.put(KEY, next);
    this.cached = next;
    await this.ctx.storage.setAlarm(Date.parse(next.expiresAt) + 1000);
    return { ok: true };
  }

  /** Puts the durable record back after the object lost its storage or missed a write (never replaces a newer version). */
  async restore(cart: StoredCart): Promise<StoredCart> {
    const current = await this.load();
    if (current && current.version >= cart.version) return current;
    await this.ctx.storage.put(KEY, cart);
    this.cached = cart;
    return cart;
  }

  override async alarm(): Promise<void> {
    const cart = await this.load();
    if (cart && Date.parse(cart.expiresAt) > Date.now()) {
      await this.ctx.storage.setAlarm(Date.parse(cart.expiresAt) + 1000);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.cached = null;
  }
}
