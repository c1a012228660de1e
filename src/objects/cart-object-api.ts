/**
 * What the worker may call on a cart's CartObject. `Env` names the object by this interface so
 * the binding's type does not pull the object's implementation into every module.
 */
export interface StoredCart {
  version: number;
  expiresAt: string;
  /** The cart's whole state as JSON (src/services/checkout/state.ts), including its rendered view. */
  state: string;
  /** The cart as the public read shows it, as JSON: a read hands it out without parsing the state. */
  view: string;
}

export type CartWriteResult = { ok: true } | { ok: false; current: StoredCart | null };

export interface CartObjectApi extends Rpc.DurableObjectBranded {
  read(nowMs: number): Promise<StoredCart | null>;
  /** The public view alone (null: unknown or expired), the hot path of GET /public/checkout/cart/{id}. */
  readView(nowMs: number): Promise<string | null>;
  write(expectedVersion: number | null, next: StoredCart): Promise<CartWriteResult>;
  restore(cart: StoredCart): Promise<StoredCart>;
}
