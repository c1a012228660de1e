import { z } from '@hono/zod-openapi';
import { and, asc, eq, ne, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson } from '../../db/client';
import { commitGuarded, guardedUpdate, nextUpdatedAt } from '../../db/commit';
import { fetchPage } from '../../db/paging';
import { customers, paymentMethods } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import { filterValues, listFilter, paginationQuery } from '../../http/pagination';
import type { PaymentMethodResource, PaymentMethodStatus } from '../../schemas/payment-methods';
import type { ServiceContext } from '../context';
import { loadSettings } from '../platform/settings';
import { canTransition, defaultMethodName, renderPaymentMethod, UNUSABLE_STATUSES, type PaymentMethodRow } from './methods-render';

// Reading, listing, changing and revoking payment methods (spec §2.2). Every change of a method
// goes through the guarded write path with a `payment_method.updated` event; a customer has at
// most one default method, and a method that becomes the default takes it from the others in the
// same batch. Creation is in methods-create.ts, the nightly card expiry in methods-expiry.ts.

export type { PaymentMethodRow } from './methods-render';

/** The tenant's creditor identifier, shown in every `sepaMandate`. */
export async function creditorIdOf(ctx: ServiceContext): Promise<string | null> {
  return (await loadSettings(ctx.db, ctx.tenant.id))['sepa.creditorId'];
}

const ofTenant = (ctx: ServiceContext) => eq(paymentMethods.tenantId, ctx.tenant.id);

/** A method of the tenant (of the customer, for a customer session), or 404. */
export async function findPaymentMethod(ctx: ServiceContext, id: string, customerScope?: string): Promise<PaymentMethodRow> {
  const row = await ctx.db
    .select()
    .from(paymentMethods)
    .where(and(ofTenant(ctx), eq(paymentMethods.id, id), customerScope ? eq(paymentMethods.customerId, customerScope) : undefined))
    .get();
  if (!row) throw ApiError.notFound('Payment method');
  return row;
}

export async function getPaymentMethod(ctx: ServiceContext, id: string, customerScope?: string): Promise<PaymentMethodResource> {
  const [row, creditorId] = await Promise.all([findPaymentMethod(ctx, id, customerScope), creditorIdOf(ctx)]);
  return renderPaymentMethod(row, creditorId);
}

const filterFields = {
  ...paginationQuery,
  ...listFilter('type', z.string().max(40)),
  ...listFilter('status', z.string().max(40)),
  enabled: z.enum(['true', 'false']).optional(),
};

/** GET /payment-methods: filters. */
export const paymentMethodListQuery = z.object({ ...filterFields, ...listFilter('customer', z.string().max(64)) });
/** GET /customers/{id}/payment-methods: the same without the customer. */
export const customerPaymentMethodListQuery = z.object(filterFields);

type ListQuery = z.output<typeof customerPaymentMethodListQuery> & Partial<Pick<z.output<typeof paymentMethodListQuery>, 'customer' | 'customer[]'>>;

/** A page of the tenant's methods, oldest first; `customerId` narrows to one customer (the customer-scoped view, a customer session). */
export async function listPaymentMethods(ctx: ServiceContext, q: ListQuery, customerId?: string) {
  const filters: (SQL | undefined)[] = [ofTenant(ctx)];
  const customerIds = filterValues(q.customer, q['customer[]']);
  if (customerIds) filters.push(inJson(paymentMethods.customerId, customerIds));
  if (customerId) filters.push(eq(paymentMethods.customerId, customerId));
  const types = filterValues(q.type, q['type[]']);
  if (types) filters.push(inJson(paymentMethods.type, types));
  const statuses = filterValues(q.status, q['status[]']);
  if (statuses) filters.push(inJson(paymentMethods.status, statuses));
  if (q.enabled) filters.push(eq(paymentMethods.enabled, q.enabled === 'true'));
  const creditorId = await creditorIdOf(ctx);
  return fetchPage(ctx.db, paymentMethods, and(...filters), [asc(paymentMethods.createdAt), asc(paymentMethods.id)], q, (r) => renderPaymentMethod(r, creditorId));
}

/** GET /customers/{id}/payment-methods: 404 for a customer of another tenant. */
export async function listCustomerPaymentMethods(ctx: ServiceContext, customerId: string, q: ListQuery) {
  const customer = await ctx.db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, customerId)))
    .get();
  if (!customer) throw ApiError.notFound('Customer');
  return listPaymentMethods(ctx, q, customerId);
}

/** The customer's default methods other than `exceptId` (one, unless an older writer left two). */
export function otherDefaults(ctx: ServiceContext, customerId: string, exceptId: string) {
  return ctx.db
    .select()
    .from(paymentMethods)
    .where(and(ofTenant(ctx), eq(paymentMethods.customerId, customerId), eq(paymentMethods.isDefault, true), ne(paymentMethods.id, exceptId)))
    .all();
}

/**
 * Statements that take the default from the customer's other methods: each previous default
 * through the guarded update (a concurrent change of it fails the batch) with its
 * `payment_method.updated`, then any default that appeared since they were read.
 */
export function takeDefault(ctx: ServiceContext, customerId: string, exceptId: string, previous: PaymentMethodRow[], creditorId: string | null): BatchItem<'sqlite'>[] {
  const statements: BatchItem<'sqlite'>[] = [];
  for (const other of previous) {
    const updatedAt = nextUpdatedAt(ctx.now, other.updatedAt);
    statements.push(
      ...guardedUpdate(ctx.db, { table: paymentMethods, tenantId: ctx.tenant.id, id: other.id, expectedUpdatedAt: other.updatedAt, set: { isDefault: false, updatedAt } }),
      insertEvent(ctx.db, {
        tenantId: ctx.tenant.id,
        type: 'payment_method.updated',
        resourceId: other.id,
        data: renderPaymentMethod({ ...other, isDefault: false, updatedAt }, creditorId),
        now: ctx.now,
      }),
    );
  }
  statements.push(
    ctx.db
      .update(paymentMethods)
      .set({ isDefault: false })
      .where(and(ofTenant(ctx), eq(paymentMethods.customerId, customerId), eq(paymentMethods.isDefault, true), ne(paymentMethods.id, exceptId))),
  );
  return statements;
}

export interface PaymentMethodPatch {
  /** null: back to the generated name. */
  name?: string | null;
  default?: boolean | null;
  enabled?: boolean | null;
  /** null: empty. */
  data?: string[] | null;
}

const conflict = 'The payment method was changed concurrently; reload and retry.';

/**
 * PATCH /payment-methods/{id}: name, default, enabled, data. Only a usable, enabled method can be
 * the default; disabling the default clears it; a revoked method stays disabled.
 */
export async function updatePaymentMethod(ctx: ServiceContext, id: string, patch: PaymentMethodPatch): Promise<PaymentMethodResource> {
  const current = await findPaymentMethod(ctx, id);
  const creditorId = await creditorIdOf(ctx);
  const enabled = patch.enabled ?? current.enabled;
  const v = new Violations();
  if (current.status === 'revoked' && patch.enabled === true) v.add('enabled', 'A revoked payment method cannot be enabled again.', 'revoked');
  if (patch.default === true) {
    if (UNUSABLE_STATUSES.includes(current.status)) v.add('default', `The payment method is ${current.status} and cannot be the default.`, 'not_usable');
    else if (!enabled) v.add('default', 'A disabled payment method cannot be the default.', 'disabled');
  }
  v.throwIfAny();
  const changes: Partial<PaymentMethodRow> = {
    enabled,
    isDefault: enabled ? (patch.default ?? current.isDefault) : false,
    ...(patch.name !== undefined ? { name: patch.name ?? defaultMethodName(current) } : {}),
    ...(patch.data !== undefined ? { data: patch.data ?? [] } : {}),
  };
  const next = { ...current, ...changes };
  if (JSON.stringify(next) === JSON.stringify(current)) return renderPaymentMethod(current, creditorId);
  const becomesDefault = next.isDefault && !current.isDefault;
  const statements = becomesDefault ? takeDefault(ctx, current.customerId, id, await otherDefaults(ctx, current.customerId, id), creditorId) : [];
  const { resource } = await commitGuarded(ctx, {
    table: paymentMethods,
    current,
    changes,
    render: (row) => renderPaymentMethod(row, creditorId),
    statements,
    events: ['payment_method.updated'],
    conflict,
  });
  return resource;
}

/**
 * Moves a method along its state machine (docs/payment-method-states.md) with `extra` column
 * changes, guarded by the row as read; 409 `invalid-transition` when the machine forbids it.
 * For collection (`action_required` and back), the nightly expiry and revocation alike.
 */
export async function changePaymentMethodStatus(
  ctx: ServiceContext,
  current: PaymentMethodRow,
  to: PaymentMethodStatus,
  extra: Partial<PaymentMethodRow> = {},
  creditorId?: string | null,
): Promise<PaymentMethodResource> {
  if (!canTransition(current.status, to)) {
    throw ApiError.conflict(`A payment method that is ${current.status} cannot become ${to}.`, current.status === to ? 'already-' + to : 'invalid-transition');
  }
  const shownCreditorId = creditorId === undefined ? await creditorIdOf(ctx) : creditorId;
  const { resource } = await commitGuarded(ctx, {
    table: paymentMethods,
    current,
    changes: { ...extra, status: to },
    where: eq(paymentMethods.status, current.status),
    render: (row) => renderPaymentMethod(row, shownCreditorId),
    events: ['payment_method.updated'],
    conflict,
  });
  return resource;
}

/** PUT /payment-methods/{id}/revoke and DELETE: final; the method is no longer the default nor enabled. 409 when it already is revoked. */
export async function revokePaymentMethod(ctx: ServiceContext, id: string): Promise<PaymentMethodResource> {
  const current = await findPaymentMethod(ctx, id);
  if (current.status === 'revoked') throw ApiError.conflict('The payment method is already revoked.', 'already-revoked');
  return changePaymentMethodStatus(ctx, current, 'revoked', { revokedAt: ctx.now.toISOString(), isDefault: false, enabled: false });
}
