import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertRows } from '../../db/insert';
import { entitlements, featureAssignments, features, pricePlans, products, subscriptionItems, subscriptions } from '../../db/schema';
import type { EventType } from '../../events/catalogue';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import { fetchPage } from '../../db/paging';
import { rawStatement, tenantRowsById, runBatch } from '../../db/client';
import { collection, paginationQuery } from '../../http/pagination';
import { newId } from '../../lib/ids';
import { checkReference, listFilter, resourceService } from '../common/resource';
import { forgetEntitlementChecks } from './entitlement-check';
import type { SubscriptionAggregate } from './aggregate';
import type { EntitlementResource, FeatureAssignmentResource, FeatureResource } from '../../schemas/entitlements';

type FeatureRow = typeof features.$inferSelect;
export interface FeatureInput {
  code: string;
  name: string;
  description: string | null;
  status: FeatureRow['status'];
  type: FeatureRow['type'];
  config: { value: string; label: string }[] | null;
  unit: string | null;
}

export const featureService = resourceService({
  label: 'Feature',
  table: features,
  render: (r: FeatureRow): FeatureResource => ({
    id: r.id,
    code: r.code,
    name: r.name,
    description: r.description,
    status: r.status,
    type: r.type,
    config: r.config ?? [],
    unit: r.unit,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  check(_ctx, input: FeatureInput, current, v) {
    if (current && input.code !== current.code) v.add('code', 'The code of a feature cannot change: applications check it.', 'immutable');
    if (input.type === 'config' && (!input.config || input.config.length === 0)) v.add('config', 'A config feature needs at least one option.', 'required');
    if (input.type !== 'config' && input.config && input.config.length > 0) v.add('config', 'Only config features take options.', 'not_allowed');
    if (input.type !== 'quantity' && input.unit) v.add('unit', 'Only quantity features take a unit.', 'not_allowed');
  },
  columns: (_ctx, i: FeatureInput) => i,
  writable: (r): FeatureInput => ({ code: r.code, name: r.name, description: r.description, status: r.status, type: r.type, config: r.config, unit: r.unit }),
  uniques: { 'features.code': 'code' },
  inUse: (id, tenantId) => sql`EXISTS (SELECT 1 FROM feature_assignments WHERE tenant_id = ${tenantId} AND feature_id = ${id})`,
  events: { created: 'feature.created', updated: 'feature.updated', deleted: 'feature.deleted' },
  filters: { code: listFilter(z.string().max(64), (v) => eq(features.code, v)) },
  sortable: { code: features.code, name: features.name },
});

type AssignmentRow = typeof featureAssignments.$inferSelect;
type EntitlementRow = typeof entitlements.$inferSelect;

/** The item statuses that carry entitlements: billed now, or billed until their end date. */
const ENTITLED_ITEM_STATUSES = new Set(['active', 'canceled']);

/**
 * Resolves a subscription's entitlements from the feature assignments of its items' products and
 * price plans, and returns the statements that replace the stored ones plus the event announcing
 * them. Assignments apply when their validity window covers the moment of resolution. Whoever
 * commits the statements then calls forgetEntitlementChecks (commitSubscriptionChange does).
 */
export async function entitlementStatements(ctx: ServiceContext, agg: Pick<SubscriptionAggregate, 'row' | 'items'>) {
  const nowIso = ctx.now.toISOString();
  const objectIds = [...new Set(agg.items.flatMap((i) => [i.productId, i.pricePlanId]))];
  const assignments = objectIds.length
    ? await ctx.db
        .select({ a: featureAssignments, f: features })
        .from(featureAssignments)
        .innerJoin(features, and(eq(features.tenantId, featureAssignments.tenantId), eq(features.id, featureAssignments.featureId)))
        .where(
          and(
            eq(featureAssignments.tenantId, ctx.tenant.id),
            sql`${featureAssignments.objectId} IN (SELECT value FROM json_each(${JSON.stringify(objectIds)}))`,
          ),
        )
    : [];
  const subscriptionLive = agg.row.status === 'active' || agg.row.status === 'paused';
  const rows: EntitlementRow[] = [];
  for (const item of agg.items) {
    for (const { a, f } of assignments) {
      const matches = (a.object === 'product' && a.objectId === item.productId) || (a.object === 'product-price' && a.objectId === item.pricePlanId);
      if (!matches) continue;
      if (a.validFrom && a.validFrom > nowIso) continue;
      if (a.validUntil && a.validUntil <= nowIso) continue;
      rows.push({
        id: newId(),
        tenantId: ctx.tenant.id,
        subscriptionId: agg.row.id,
        subscriptionItemId: item.id,
        customerId: agg.row.customerId,
        featureId: f.id,
        featureCode: f.code,
        assignmentId: a.id,
        value: a.value,
        validFrom: a.validFrom,
        validUntil: a.validUntil,
        active: subscriptionLive && ENTITLED_ITEM_STATUSES.has(item.status) && f.status === 'active',
        updatedAt: nowIso,
      });
    }
  }
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.delete(entitlements).where(and(eq(entitlements.tenantId, ctx.tenant.id), eq(entitlements.subscriptionId, agg.row.id))),
    ...insertRows(ctx.db, entitlements, rows),
  ];
  const events: { type: EventType; data: unknown }[] = [
    { type: 'entitlement.state.updated', data: { subscriptionId: agg.row.id, customerId: agg.row.customerId, entitlements: rows.map(renderEntitlementRow) } },
  ];
  return { statements, events };
}

function renderEntitlementRow(e: EntitlementRow) {
  return { featureCode: e.featureCode, subscriptionItemId: e.subscriptionItemId, value: e.value, validFrom: e.validFrom, validUntil: e.validUntil, active: e.active };
}

export async function listSubscriptionEntitlements(ctx: ServiceContext, subscriptionId: string, page: Page) {
  const sub = await ctx.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, subscriptionId)))
    .get();
  if (!sub) throw ApiError.notFound('Subscription');
  const rows = await ctx.db
    .select({ e: entitlements, f: features, i: subscriptionItems })
    .from(entitlements)
    .innerJoin(features, and(eq(features.tenantId, entitlements.tenantId), eq(features.id, entitlements.featureId)))
    .innerJoin(subscriptionItems, and(eq(subscriptionItems.tenantId, entitlements.tenantId), eq(subscriptionItems.id, entitlements.subscriptionItemId)))
    .where(and(eq(entitlements.tenantId, ctx.tenant.id), eq(entitlements.subscriptionId, subscriptionId)))
    .orderBy(entitlements.featureCode, entitlements.id);
  const data = rows.map(({ e, f, i }): EntitlementResource => ({
    id: e.id,
    subscriptionItem: { id: i.id, name: i.name, description: i.description, furtherInformation: i.furtherInformation, status: i.status, subscriptionId: i.subscriptionId },
    feature: featureService.render(f),
    value: e.value,
    validFrom: e.validFrom,
    validUntil: e.validUntil,
    active: e.active && (e.validFrom === null || e.validFrom <= ctx.now.toISOString()) && (e.validUntil === null || e.validUntil > ctx.now.toISOString()),
  }));
  const start = (page.page - 1) * page.limit;
  return collection(data.slice(start, start + page.limit), data.length, page);
}

export interface AssignmentInput {
  feature: string;
  value: string | null;
  object: AssignmentRow['object'];
  objectId: string;
  validFrom: string | null;
  validUntil: string | null;
  applyToExistingSubscriptions: boolean;
}

function renderAssignment(a: AssignmentRow, f: FeatureRow | null): FeatureAssignmentResource {
  return {
    id: a.id,
    object: a.object,
    objectId: a.objectId,
    feature: f ? featureService.render(f) : { id: a.featureId },
    name: f ? `${f.name}` : a.featureId,
    value: a.value,
    validFrom: a.validFrom,
    validUntil: a.validUntil,
    createdAt: a.createdAt,
  };
}

export async function createAssignment(ctx: ServiceContext, input: AssignmentInput) {
  const v = new Violations();
  const feature = (await checkReference(ctx, features, input.feature, 'feature', v, 'feature')) as FeatureRow | null;
  if (input.object === 'product') await checkReference(ctx, products, input.objectId, 'objectId', v, 'product');
  else await checkReference(ctx, pricePlans, input.objectId, 'objectId', v, 'price plan');
  if (input.validFrom && input.validUntil && input.validUntil <= input.validFrom) v.add('validUntil', 'Must lie after validFrom.', 'out_of_range');
  if (feature?.type === 'switch' && input.value !== null && !['true', 'false'].includes(input.value)) v.add('value', 'A switch feature takes "true" or "false".', 'invalid_value');
  if (feature?.type === 'quantity' && input.value !== null && !/^\d{1,15}(\.\d{1,10})?$/.test(input.value)) v.add('value', 'A quantity feature takes a non-negative number.', 'invalid_value');
  if (feature?.type === 'config' && input.value !== null && !(feature.config ?? []).some((c) => c.value === input.value)) {
    v.add('value', `Must be one of the feature's options: ${(feature.config ?? []).map((c) => c.value).join(', ')}.`, 'invalid_value');
  }
  v.throwIfAny();
  const nowIso = ctx.now.toISOString();
  const row: AssignmentRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    featureId: input.feature,
    object: input.object,
    objectId: input.objectId,
    value: input.value,
    validFrom: input.validFrom ? new Date(input.validFrom).toISOString() : null,
    validUntil: input.validUntil ? new Date(input.validUntil).toISOString() : null,
    createdAt: nowIso,
  };
  const resource = renderAssignment(row, feature);
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.insert(featureAssignments).values(row),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'feature_assignment.created', resourceId: row.id, data: resource, now: ctx.now }),
  ];
  if (input.applyToExistingSubscriptions) {
    // Every live item that uses the product or price gets the entitlement, in the same batch.
    const column = input.object === 'product' ? sql`i.product_id` : sql`i.price_plan_id`;
    statements.push(
      rawStatement(ctx.db, sql`INSERT OR IGNORE INTO entitlements (id, tenant_id, subscription_id, subscription_item_id, customer_id, feature_id, feature_code,
          assignment_id, value, valid_from, valid_until, active, updated_at)
        SELECT lower(hex(randomblob(16))), i.tenant_id, i.subscription_id, i.id, s.customer_id, ${feature!.id}, ${feature!.code}, ${row.id}, ${row.value},
          ${row.validFrom}, ${row.validUntil}, CASE WHEN s.status IN ('active', 'paused') AND i.status IN ('active', 'canceled') AND ${feature!.status} = 'active' THEN 1 ELSE 0 END, ${nowIso}
        FROM subscription_items i JOIN subscriptions s ON s.tenant_id = i.tenant_id AND s.id = i.subscription_id
        WHERE i.tenant_id = ${ctx.tenant.id} AND ${column} = ${row.objectId} AND s.status IN ('active', 'paused')`),
    );
  }
  await runBatch(ctx.db, statements);
  if (input.applyToExistingSubscriptions) forgetEntitlementChecks(ctx.tenant.id);
  return resource;
}

/** GET /entitlement/feature-assignments: a page, optionally of one feature or one product / price plan. */
export const assignmentListQuery = z.object({ ...paginationQuery, feature: z.string().max(64).optional(), objectId: z.string().max(64).optional() });

export async function listAssignments(ctx: ServiceContext, query: z.output<typeof assignmentListQuery>) {
  const where = and(
    eq(featureAssignments.tenantId, ctx.tenant.id),
    query.feature ? eq(featureAssignments.featureId, query.feature) : undefined,
    query.objectId ? eq(featureAssignments.objectId, query.objectId) : undefined,
  );
  const result = await fetchPage(ctx.db, featureAssignments, where, [featureAssignments.createdAt, featureAssignments.id].map((c) => sql`${c}`), query, (a) => a);
  const featureRows = result.data.length
    ? await ctx.db
        .select()
        .from(features)
        .where(tenantRowsById(features, ctx.tenant.id, result.data.map((a) => a.featureId)))
    : [];
  const byId = new Map(featureRows.map((f) => [f.id, f]));
  return { ...result, data: result.data.map((a) => renderAssignment(a, byId.get(a.featureId) ?? null)) };
}

export async function getAssignment(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select({ a: featureAssignments, f: features })
    .from(featureAssignments)
    .leftJoin(features, and(eq(features.tenantId, featureAssignments.tenantId), eq(features.id, featureAssignments.featureId)))
    .where(and(eq(featureAssignments.tenantId, ctx.tenant.id), eq(featureAssignments.id, id)))
    .get();
  if (!row) throw ApiError.notFound('Feature assignment');
  return renderAssignment(row.a, row.f);
}

/** Removing an assignment removes the entitlements it granted, in the same batch. */
export async function deleteAssignment(ctx: ServiceContext, id: string) {
  const current = await getAssignment(ctx, id);
  await ctx.db.batch([
    ctx.db.delete(featureAssignments).where(and(eq(featureAssignments.tenantId, ctx.tenant.id), eq(featureAssignments.id, id))),
    ctx.db.delete(entitlements).where(and(eq(entitlements.tenantId, ctx.tenant.id), eq(entitlements.assignmentId, id))),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'feature_assignment.deleted', resourceId: id, data: current, now: ctx.now }),
  ]);
  forgetEntitlementChecks(ctx.tenant.id);
}
