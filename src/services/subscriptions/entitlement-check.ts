import { and, eq, sql } from 'drizzle-orm';
import { preparedOnce } from '../../db/client';
import { customers, entitlements } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { systemNow } from '../../lib/clock';
import { TtlCache } from '../../lib/ttl-cache';
import type { CustomerEntitlement } from '../../schemas/entitlements';
import type { ServiceContext } from '../context';

// GET /customers/{id}/entitlements?feature=: the check an application makes on each of its own
// requests. The customer's active entitlement rows of the feature are remembered per isolate for
// ENTITLEMENT_CHECK_TTL_MS (docs/decisions.md, Subscriptions, usage, entitlements); which of them
// hold is decided on every check from their validity windows and the tenant's now, so an
// entitlement starts and ends on time whatever is remembered. A change committed through this
// isolate (a subscription change, an assignment applied or deleted, a customer deleted) forgets the
// tenant's entries at once; a change made elsewhere (another isolate, the TenantObject's billing
// run in production) is seen within the TTL.

/** How long an isolate answers from what it read: the bound documented for changes made elsewhere. */
export const ENTITLEMENT_CHECK_TTL_MS = 5_000;
/** Customer and feature pairs remembered per isolate; the least recently used one goes first. */
export const ENTITLEMENT_CHECK_ENTRIES = 10_000;

interface HeldRow {
  value: string | null;
  subscriptionId: string;
  validFrom: string | null;
  validUntil: string | null;
}

/** The rows of a customer and feature, or null: no such customer in the tenant. */
interface Held {
  tenantId: string;
  rows: readonly HeldRow[] | null;
}

const checks = new TtlCache<Held>({ ttlMs: ENTITLEMENT_CHECK_TTL_MS, maxEntries: ENTITLEMENT_CHECK_ENTRIES, now: () => systemNow().getTime() });

/** The customer by primary key and its active rows of the feature on the (tenant, customer, feature, active) index, in one statement. */
const heldRows = preparedOnce((db) =>
  db
    .select({ value: entitlements.value, subscriptionId: entitlements.subscriptionId, validFrom: entitlements.validFrom, validUntil: entitlements.validUntil })
    .from(customers)
    .leftJoin(
      entitlements,
      and(
        eq(entitlements.tenantId, customers.tenantId),
        eq(entitlements.customerId, customers.id),
        eq(entitlements.featureCode, sql.placeholder('featureCode')),
        eq(entitlements.active, true),
      ),
    )
    .where(and(eq(customers.tenantId, sql.placeholder('tenantId')), eq(customers.id, sql.placeholder('customerId'))))
    .prepare(),
);

/** Is this customer entitled to a feature, and with which values? 404 for a customer the tenant does not have. */
export async function customerEntitlement(ctx: ServiceContext, customerId: string, featureCode: string): Promise<CustomerEntitlement> {
  const tenantId = ctx.tenant.id;
  const key = JSON.stringify([tenantId, customerId, featureCode]);
  let held = checks.get(key);
  if (!held) {
    const mark = checks.mark();
    const rows = await heldRows(ctx.db).all({ tenantId, customerId, featureCode });
    held = {
      tenantId,
      rows: rows.length === 0 ? null : Object.freeze(rows.filter((r): r is HeldRow => r.subscriptionId !== null).map((r) => Object.freeze(r))),
    };
    checks.set(key, held, mark);
  }
  if (!held.rows) throw ApiError.notFound('Customer');
  const now = ctx.now.toISOString();
  const valid = held.rows.filter((r) => (r.validFrom === null || r.validFrom <= now) && (r.validUntil === null || r.validUntil > now));
  return {
    customer: customerId,
    feature: featureCode,
    entitled: valid.length > 0,
    values: [...new Set(valid.map((r) => r.value).filter((v): v is string => v !== null))],
    subscriptions: [...new Set(valid.map((r) => r.subscriptionId))],
  };
}

/** After a change of a tenant's entitlements or customers is committed: its remembered checks go. */
export function forgetEntitlementChecks(tenantId: string): void {
  checks.invalidate((held) => held.tenantId === tenantId);
}
