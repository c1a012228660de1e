import { sql } from 'drizzle-orm';
import { ITEM_MEASUREMENT_VALUES } from '../../schemas/subscriptions';
import type { ServiceContext } from '../context';

// The measurement values a subscription item embeds (docs/decisions.md, Response shapes).

export interface MeasurementValue {
  id: string;
  measurement: string;
  quantity: string;
  measuredAt: string;
}

/**
 * The latest measurement values of these items, at most ITEM_MEASUREMENT_VALUES each, in one
 * statement: per item an index range scan of (tenant, item, measured_at) that stops after the
 * limit, so an item with a million events costs what one with five does.
 */
export async function latestUsage(ctx: ServiceContext, itemIds: string[]): Promise<Map<string, MeasurementValue[]>> {
  const out = new Map<string, MeasurementValue[]>();
  if (itemIds.length === 0) return out;
  const rows = await ctx.db.all<{ item: string; id: string; measurement: string; quantity: string; measuredAt: string }>(sql`
    SELECT e.subscription_item_id AS item, e.event_id AS id, e.measurement_id AS measurement, e.quantity AS quantity, e.measured_at AS measuredAt
    FROM json_each(${JSON.stringify(itemIds)}) j
    JOIN usage_events e ON e.rowid IN (
      SELECT x.rowid FROM usage_events x WHERE x.tenant_id = ${ctx.tenant.id} AND x.subscription_item_id = j.value
      ORDER BY x.measured_at DESC LIMIT ${ITEM_MEASUREMENT_VALUES})
    ORDER BY e.measured_at DESC, e.event_id DESC`);
  for (const r of rows) out.set(r.item, [...(out.get(r.item) ?? []), { id: r.id, measurement: r.measurement, quantity: r.quantity, measuredAt: r.measuredAt }]);
  return out;
}
