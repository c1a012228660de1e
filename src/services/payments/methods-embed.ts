import { tenantRowsById } from '../../db/client';
import { paymentMethods } from '../../db/schema';
import type { EmbeddedPaymentMethod, PaymentMethodResource } from '../../schemas/payment-methods';
import type { ServiceContext } from '../context';
import { memo } from '../common/memo';
import { creditorIdOf } from './methods';
import { renderPaymentMethod, type PaymentMethodRow } from './methods-render';

// Customers, subscriptions and invoices embed payment methods in the resource's own form (spec
// §2.2), rendered by the one renderer, so an embedded IBAN is masked exactly as the resource's.
// A page of them costs one query for the methods and one for the creditor id (once per context):
// docs/decisions.md, Response shapes.

/** The statement reading the methods of these ids (for a caller's `db.batch`). */
export function paymentMethodRows(ctx: ServiceContext, ids: readonly (string | null | undefined)[]) {
  const wanted = [...new Set(ids.filter((x): x is string => typeof x === 'string'))];
  return ctx.db.select().from(paymentMethods).where(tenantRowsById(paymentMethods, ctx.tenant.id, wanted));
}

/** The creditor id every `sepaMandate` shows: read once per context. */
export function embeddedCreditorId(ctx: ServiceContext): Promise<string | null> {
  return memo(ctx, 'payment-methods:creditorId', () => creditorIdOf(ctx));
}

/** Rendered methods by id, from rows already read. */
export async function renderEmbedded(ctx: ServiceContext, rows: readonly PaymentMethodRow[]): Promise<Map<string, PaymentMethodResource>> {
  if (rows.length === 0) return new Map();
  const creditorId = await embeddedCreditorId(ctx);
  return new Map(rows.map((r) => [r.id, renderPaymentMethod(r, creditorId)]));
}

/** Rendered methods by id: one query for any number of ids (none for none). */
export async function embedPaymentMethods(ctx: ServiceContext, ids: readonly (string | null | undefined)[]): Promise<Map<string, PaymentMethodResource>> {
  if (!ids.some((x) => typeof x === 'string')) return new Map();
  return renderEmbedded(ctx, await paymentMethodRows(ctx, ids));
}

/** The shortened form of spec §2.2 (subscriptions): the resource without `referenceId`. */
export function shortPaymentMethod(method: PaymentMethodResource): EmbeddedPaymentMethod {
  const { referenceId: _referenceId, ...short } = method;
  return short;
}
