import { z } from '@hono/zod-openapi';

// Representations of webhooks, their deliveries and the event catalogue.

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    version: z.string(),
    enabled: z.boolean(),
    activities: z.array(z.string()),
    failureCount: z.number().int(),
    disabledReason: z.string().nullable(),
    previousSecretExpiresAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Webhook');
export type WebhookResource = z.infer<typeof WebhookSchema>;

export const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string() }).openapi('WebhookCreated');
export const WebhookRotatedSchema = WebhookSchema.extend({ secret: z.string() }).openapi('WebhookRotated');
/** A webhook with its signing secret: shown once, when created or rotated. */
export type WebhookWithSecret = z.infer<typeof WebhookCreatedSchema>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const WebhookDeliverySchema = z
  .object({
    id: z.string(),
    webhook: z.string(),
    event: z.object({ id: z.string(), type: z.string() }),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastResponseCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    deadLetteredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('WebhookDelivery');
export type WebhookDeliveryResource = z.infer<typeof WebhookDeliverySchema>;

export const WebhookEventCatalogueSchema = z
  .object({ data: z.array(z.object({ name: z.string(), description: z.string(), version: z.string() })) })
  .openapi('WebhookEventCatalogue');
export type WebhookEventCatalogue = z.infer<typeof WebhookEventCatalogueSchema>;
