import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { fetchPage } from '../../db/paging';
import { webhookDeliveries, webhooks } from '../../db/schema';
import { EVENT_CATALOGUE, EVENT_VERSION, EVENT_VERSION_ALIASES, payloadVersion } from '../../events/catalogue';
import { newWebhookSecret } from '../../events/signing';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { paginationQuery } from '../../http/pagination';
import { DELIVERY_STATUSES, type WebhookDeliveryResource, type WebhookEventCatalogue, type WebhookResource, type WebhookWithSecret } from '../../schemas/webhooks';
import { systemNow } from '../../lib/clock';
import { outboundUrlRefusals } from '../../lib/outbound-url';
import { listFilter, resourceService } from '../common/resource';

type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface WebhookInput {
  url: string;
  events: string[];
  version: string;
  enabled: boolean;
  activities: string[];
}

/** After a rotation, the old secret keeps signing (as a second signature) this long. */
export const SECRET_GRACE_MS = 24 * 3600 * 1000;

export function renderWebhook(r: WebhookRow): WebhookResource {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    version: payloadVersion(r.version) ?? r.version,
    enabled: r.enabled,
    activities: r.activities,
    failureCount: r.failureCount,
    disabledReason: r.disabledReason,
    previousSecretExpiresAt: r.previousSecretExpiresAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function checkUrl(ctx: ServiceContext, url: string, v: Violations) {
  for (const r of outboundUrlRefusals(url, ctx.tenant.mode)) v.add('url', r.message, r.code);
}

export const webhookService = resourceService({
  label: 'Webhook',
  table: webhooks,
  render: renderWebhook,
  check(ctx: ServiceContext, input: WebhookInput, _current, v: Violations) {
    checkUrl(ctx, input.url, v);
    input.events.forEach((e, i) => {
      if (e !== '*' && !Object.hasOwn(EVENT_CATALOGUE, e)) v.add(`events[${i}]`, `Unknown event "${e}"; see GET /available-webhook-events.`, 'unknown_event');
    });
    if (payloadVersion(input.version) === null) {
      v.add('version', `The only payload version is ${EVENT_VERSION} (also accepted as ${Object.keys(EVENT_VERSION_ALIASES).filter((a) => a !== EVENT_VERSION).join(', ')}).`, 'unknown_version');
    }
  },
  columns: (_ctx, input: WebhookInput, current) => ({
    url: input.url,
    events: [...new Set(input.events)],
    // Stored as the payload version it stands for: `v1` from the n8n trigger reads back as 1.0.0.
    version: payloadVersion(input.version) ?? input.version,
    enabled: input.enabled,
    activities: input.activities,
    ...(current
      ? // Enabling a webhook again clears why it was disabled.
        input.enabled && !current.enabled
        ? { disabledReason: null }
        : {}
      : { secret: newWebhookSecret(), previousSecret: null, previousSecretExpiresAt: null, failureCount: 0, disabledReason: null }),
  }),
  writable: (r): WebhookInput => ({ url: r.url, events: r.events, version: r.version, enabled: r.enabled, activities: r.activities }),
  filters: { enabled: listFilter(z.enum(['true', 'false']), (v) => eq(webhooks.enabled, v === 'true')) },
});

/** Creation shows the secret, once. */
export async function createWebhook(ctx: ServiceContext, input: WebhookInput): Promise<WebhookWithSecret> {
  const created = await webhookService.create(ctx, input);
  const row = await webhookService.find(ctx, created.id);
  return { ...created, secret: row.secret };
}

/** A new secret; the old one keeps signing for 24 hours so receivers can switch without losing deliveries. */
export async function rotateSecret(ctx: ServiceContext, id: string): Promise<WebhookWithSecret> {
  const current = await webhookService.find(ctx, id);
  const secret = newWebhookSecret();
  const updated = await webhookService.change(ctx, current, {
    secret,
    previousSecret: current.secret,
    previousSecretExpiresAt: new Date(systemNow().getTime() + SECRET_GRACE_MS).toISOString(),
  }, undefined);
  return { ...updated, secret };
}

export function renderDelivery(d: DeliveryRow): WebhookDeliveryResource {
  return {
    id: d.id,
    webhook: d.webhookId,
    event: { id: d.eventId, type: d.eventType },
    status: d.status,
    attempts: d.attempts,
    lastResponseCode: d.lastResponseCode,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt,
    nextAttemptAt: d.nextAttemptAt,
    deadLetteredAt: d.deadLetteredAt,
    createdAt: d.createdAt,
  };
}

/** GET /webhooks/{id}/deliveries: a page, optionally of one status. */
export const deliveryListQuery = z.object({ ...paginationQuery, status: z.enum(DELIVERY_STATUSES).optional() });

export async function listDeliveries(ctx: ServiceContext, webhookId: string, query: z.output<typeof deliveryListQuery>) {
  await webhookService.find(ctx, webhookId);
  const where = and(eq(webhookDeliveries.tenantId, ctx.tenant.id), eq(webhookDeliveries.webhookId, webhookId), query.status ? eq(webhookDeliveries.status, query.status) : undefined);
  return fetchPage(ctx.db, webhookDeliveries, where, [desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)], query, renderDelivery);
}

/** Sends a delivery again from the start of the retry schedule, whatever became of it. */
export async function redeliver(ctx: ServiceContext, deliveryId: string) {
  const row = await ctx.db
    .update(webhookDeliveries)
    .set({ status: 'pending', attempts: 0, nextAttemptAt: systemNow().toISOString(), lastError: null })
    .where(and(eq(webhookDeliveries.tenantId, ctx.tenant.id), eq(webhookDeliveries.id, deliveryId)))
    .returning()
    .get();
  if (!row) throw ApiError.notFound('Webhook delivery');
  await ctx.env.EVENTS.send({ deliveryIds: [row.id], tenantId: row.tenantId });
  return renderDelivery(row);
}

export function availableEvents(): WebhookEventCatalogue['data'] {
  return Object.entries(EVENT_CATALOGUE).map(([name, description]) => ({ name, description, version: EVENT_VERSION }));
}
