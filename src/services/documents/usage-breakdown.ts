import { z } from '@hono/zod-openapi';
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import { tenantDb } from '../../db/directory';
import { invoicePositions, invoices, measurements, usageEvents } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';

// The usage behind a document's metered positions, for the customer who wants to check them: a
// public page behind an unguessable token (the document's usageBreakdownUrl).

/** Enough for any real period; a breakdown beyond it says it was cut off. */
export const MAX_BREAKDOWN_EVENTS = 20_000;

export const UsageBreakdownSchema = z
  .object({
    document: z.object({ number: z.string().nullable(), currencyCode: z.string() }),
    positions: z.array(
      z.object({
        position: z.string().openapi({ description: 'The position name as on the document' }),
        quantity: z.string().openapi({ description: 'The quantity billed' }),
        serviceDateFrom: z.string().nullable(),
        serviceDateTo: z.string().nullable(),
        events: z.array(z.object({ eventId: z.string(), measurement: z.string(), measuredAt: z.string(), quantity: z.string() })),
      }),
    ),
    truncated: z.boolean().openapi({ description: `True when more than ${MAX_BREAKDOWN_EVENTS} events would be listed.` }),
  })
  .openapi('UsageBreakdown');
export type UsageBreakdown = z.infer<typeof UsageBreakdownSchema>;

export async function usageBreakdown(env: Env, tenantId: string, token: string): Promise<UsageBreakdown> {
  const db = await tenantDb(env, tenantId);
  const doc = db ? await db.select().from(invoices).where(and(eq(invoices.tenantId, tenantId), eq(invoices.usageToken, token))).get() : undefined;
  if (!db || !doc) throw ApiError.notFound('Usage breakdown');
  const positions = await db
    .select()
    .from(invoicePositions)
    .where(and(eq(invoicePositions.tenantId, doc.tenantId), eq(invoicePositions.invoiceId, doc.id), eq(invoicePositions.kind, 'usage')))
    .orderBy(asc(invoicePositions.sort));
  let left = MAX_BREAKDOWN_EVENTS;
  const out: UsageBreakdown['positions'] = [];
  for (const p of positions) {
    // At `left` 0 one event is still asked for: whether there is one decides `truncated`.
    const events =
      p.subscriptionItemId && p.serviceFrom && p.serviceTo && left >= 0
        ? await db
            .select({ eventId: usageEvents.eventId, measurement: measurements.code, measuredAt: usageEvents.measuredAt, quantity: usageEvents.quantity })
            .from(usageEvents)
            .innerJoin(measurements, and(eq(measurements.tenantId, usageEvents.tenantId), eq(measurements.id, usageEvents.measurementId)))
            .where(and(eq(usageEvents.tenantId, doc.tenantId), eq(usageEvents.subscriptionItemId, p.subscriptionItemId), gte(usageEvents.measuredAt, p.serviceFrom), lt(usageEvents.measuredAt, p.serviceTo)))
            .orderBy(asc(usageEvents.measuredAt), asc(usageEvents.eventId))
            .limit(left + 1)
        : [];
    const shown = events.slice(0, left);
    left -= shown.length;
    if (events.length > shown.length) left = -1;
    out.push({ position: p.name, quantity: p.quantity, serviceDateFrom: p.serviceFrom, serviceDateTo: p.serviceTo, events: shown });
  }
  return { document: { number: doc.number, currencyCode: doc.currencyCode }, positions: out, truncated: left < 0 };
}

const quoted = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
/** Text a spreadsheet would run as a formula is prefixed with an apostrophe. */
const text = (v: string) => quoted(/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

/** The same as CSV, one row per event. */
export function usageBreakdownCsv(b: UsageBreakdown): string {
  const rows = ['position,service_date_from,service_date_to,measurement,event_id,measured_at,quantity'];
  for (const p of b.positions) {
    for (const e of p.events) rows.push([text(p.position), p.serviceDateFrom ?? '', p.serviceDateTo ?? '', text(e.measurement), text(e.eventId), e.measuredAt, e.quantity].join(','));
  }
  return rows.join('\r\n') + '\r\n';
}
