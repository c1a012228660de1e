import { z } from '@hono/zod-openapi';
import { outer } from '../../db/client';
import { eq, sql } from 'drizzle-orm';
import { billingGroups, cancellationReasons, costCentres, measurements, productFamilies, units } from '../../db/schema';
import type { ServiceContext } from '../context';
import type { Violations } from '../../http/errors';
import {
  BILLING_GROUP_TYPES,
  MEASUREMENT_TYPES,
  type BillingGroupResource,
  type CancellationReasonResource,
  type CostCentreResource,
  type MeasurementResource,
  type ProductFamilyResource,
  type UnitResource,
} from '../../schemas/catalogue';
import { checkReference, listFilter, resourceService } from '../common/resource';

// The small catalogue records products and subscriptions point to: product families, units,
// measurements, cost centres, cancellation reasons and billing groups.

type FamilyRow = typeof productFamilies.$inferSelect & { products?: string | null };

export const productFamilyService = resourceService({
  label: 'Product family',
  table: productFamilies,
  selection: {
    products: sql<string>`(SELECT json_group_array(json_object('id', p.id, 'name', p.name, 'number', p.number) ORDER BY p.created_at, p.id)
      FROM products p, json_each(p.product_families) j
      WHERE p.tenant_id = ${outer(productFamilies.tenantId)} AND j.value = ${outer(productFamilies.id)})`,
  },
  render: (r: FamilyRow): ProductFamilyResource => ({
    id: r.id,
    name: r.name,
    products: r.products ? (JSON.parse(r.products) as ProductFamilyResource['products']) : [],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  columns: (_ctx, input: { name: string }) => ({ name: input.name }),
  writable: (r) => ({ name: r.name }),
  inUse: (id, tenantId) =>
    sql`EXISTS (SELECT 1 FROM products p, json_each(p.product_families) j WHERE p.tenant_id = ${tenantId} AND j.value = ${id})
      OR EXISTS (SELECT 1 FROM plans WHERE tenant_id = ${tenantId} AND family_id = ${id})`,
  events: { created: 'product_family.created', updated: 'product_family.updated', deleted: 'product_family.deleted' },
  filters: { name: listFilter(z.string().max(255), (v) => eq(productFamilies.name, v)) },
  sortable: { name: productFamilies.name, createdAt: productFamilies.createdAt },
});

type UnitRow = typeof units.$inferSelect;
export const unitService = resourceService({
  label: 'Unit',
  table: units,
  render: (r: UnitRow): UnitResource => ({ id: r.id, name: r.name, code: r.code, createdAt: r.createdAt, updatedAt: r.updatedAt }),
  columns: (_ctx, input: { name: string; code: string }) => input,
  writable: (r) => ({ name: r.name, code: r.code }),
  uniques: { 'units.code': 'code' },
  inUse: (id, tenantId) => sql`EXISTS (SELECT 1 FROM measurements WHERE tenant_id = ${tenantId} AND unit_id = ${id})`,
  events: { created: 'unit.created', updated: 'unit.updated', deleted: 'unit.deleted' },
  filters: { code: listFilter(z.string().max(255), (v) => eq(units.code, v)) },
  sortable: { name: units.name, code: units.code },
});

type MeasurementRow = typeof measurements.$inferSelect & { unit?: string | null };
export interface MeasurementInput {
  unit: string;
  code: string;
  description: string | null;
  fairBilling: boolean;
  aggregationType: MeasurementRow['aggregationType'];
  type: MeasurementRow['type'];
}

export const measurementService = resourceService({
  label: 'Measurement',
  table: measurements,
  selection: {
    unit: sql<string>`(SELECT json_object('id', u.id, 'name', u.name, 'code', u.code, 'createdAt', u.created_at, 'updatedAt', u.updated_at)
      FROM units u WHERE u.tenant_id = ${outer(measurements.tenantId)} AND u.id = ${outer(measurements.unitId)})`,
  },
  selectionDeps: { unit: 'unitId' },
  render: (r: MeasurementRow): MeasurementResource => ({
    id: r.id,
    unit: r.unit ? (JSON.parse(r.unit) as MeasurementResource['unit']) : { id: r.unitId },
    code: r.code,
    description: r.description,
    fairBilling: r.fairBilling,
    aggregationType: r.aggregationType,
    type: r.type,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  async check(ctx: ServiceContext, input: MeasurementInput, current, v: Violations) {
    await checkReference(ctx, units, input.unit, 'unit', v, 'unit');
    if (current && input.aggregationType !== current.aggregationType) {
      v.add('aggregationType', 'The aggregation type cannot change after creation.', 'immutable');
    }
    if (current && input.type !== current.type) v.add('type', 'The type cannot change after creation.', 'immutable');
    if ((input.type === 'instant_metered' || input.type === 'recurring') && input.aggregationType !== 'last_value') {
      v.add('aggregationType', `A ${input.type} measurement needs the aggregation last_value.`, 'aggregation_mismatch');
    }
  },
  columns: (_ctx, i: MeasurementInput) => ({
    unitId: i.unit,
    code: i.code,
    description: i.description,
    fairBilling: i.fairBilling,
    aggregationType: i.aggregationType,
    type: i.type,
  }),
  writable: (r) => ({ unit: r.unitId, code: r.code, description: r.description, fairBilling: r.fairBilling, aggregationType: r.aggregationType, type: r.type }),
  uniques: { 'measurements.code': 'code' },
  inUse: (id, tenantId) => sql`EXISTS (SELECT 1 FROM products WHERE tenant_id = ${tenantId} AND measurement_id = ${id})`,
  events: { created: 'measurement.created', updated: 'measurement.updated', deleted: 'measurement.deleted' },
  filters: {
    code: listFilter(z.string().max(255), (v) => eq(measurements.code, v)),
    type: listFilter(z.enum(MEASUREMENT_TYPES), (v) => eq(measurements.type, v)),
  },
  sortable: { code: measurements.code, createdAt: measurements.createdAt },
});

type CostCentreRow = typeof costCentres.$inferSelect;
export function renderCostCentre(r: CostCentreRow): CostCentreResource {
  return { id: r.id, name: r.name, code: r.code, type: r.type, createdAt: r.createdAt, updatedAt: r.updatedAt };
}
export const costCentreService = resourceService({
  label: 'Cost centre',
  table: costCentres,
  render: renderCostCentre,
  columns: (_ctx, input: { name: string; code: string; type: string | null }) => input,
  writable: (r) => ({ name: r.name, code: r.code, type: r.type }),
  uniques: { 'cost_centres.code': 'code' },
  inUse: (id, tenantId) => sql`EXISTS (SELECT 1 FROM products WHERE tenant_id = ${tenantId} AND cost_centre_id = ${id})`,
  events: { created: 'cost_centre.created', updated: 'cost_centre.updated', deleted: 'cost_centre.deleted' },
  filters: { code: listFilter(z.string().max(255), (v) => eq(costCentres.code, v)) },
  sortable: { name: costCentres.name, code: costCentres.code },
});

type ReasonRow = typeof cancellationReasons.$inferSelect;
export const cancellationReasonService = resourceService({
  label: 'Cancellation reason',
  table: cancellationReasons,
  render: (r: ReasonRow): CancellationReasonResource => ({ id: r.id, code: r.code, name: r.name, createdAt: r.createdAt, updatedAt: r.updatedAt }),
  columns: (_ctx, input: { code: string; name: string }) => input,
  writable: (r) => ({ code: r.code, name: r.name }),
  uniques: { 'cancellation_reasons.code': 'code' },
  events: { created: 'cancellation_reason.created', updated: 'cancellation_reason.updated', deleted: 'cancellation_reason.deleted' },
  filters: { code: listFilter(z.string().max(255), (v) => eq(cancellationReasons.code, v)) },
  sortable: { code: cancellationReasons.code, name: cancellationReasons.name },
});

type BillingGroupRow = typeof billingGroups.$inferSelect;
export interface BillingGroupInput {
  name: string;
  type: BillingGroupRow['type'];
  customDay: number | null;
  customMonth: number | null;
}
export const billingGroupService = resourceService({
  label: 'Billing group',
  table: billingGroups,
  render: (r: BillingGroupRow): BillingGroupResource => ({
    id: r.id,
    name: r.name,
    type: r.type,
    customDay: r.customDay,
    customMonth: r.customMonth,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  check(_ctx, input: BillingGroupInput, _current, v) {
    if (input.type === 'custom') {
      if (input.customDay === null) v.add('customDay', 'A custom billing group needs customDay (1 to 31).', 'required');
      if (input.customDay !== null && input.customMonth !== null) {
        // The 30th of February never comes: refuse a day the month does not have (29 Feb bills on 28 Feb in other years).
        const daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][input.customMonth - 1]!;
        if (input.customDay > daysInMonth) v.add('customDay', `Month ${input.customMonth} has at most ${daysInMonth} days.`, 'invalid_day');
      }
    } else {
      if (input.customDay !== null) v.add('customDay', 'Only custom billing groups take customDay.', 'not_allowed');
      if (input.customMonth !== null) v.add('customMonth', 'Only custom billing groups take customMonth.', 'not_allowed');
    }
  },
  columns: (_ctx, input: BillingGroupInput) => input,
  writable: (r) => ({ name: r.name, type: r.type, customDay: r.customDay, customMonth: r.customMonth }),
  events: { created: 'billing_group.created', updated: 'billing_group.updated', deleted: 'billing_group.deleted' },
  filters: { type: listFilter(z.enum(BILLING_GROUP_TYPES), (v) => eq(billingGroups.type, v)) },
  sortable: { name: billingGroups.name },
});
