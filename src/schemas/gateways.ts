import { z } from '@hono/zod-openapi';

/** A gateway's stored credentials, as shown: never the secret key or the webhook signing secret. */
export const GatewayCredentialsSchema = z
  .object({
    gateway: z.enum(['card_provider']),
    configured: z.literal(true),
    mode: z.enum(['test', 'live']).openapi({ description: "The key's mode (sk_test_… / sk_live_…); always the tenant's" }),
    secretKeyHint: z.string().openapi({ description: 'The stored key, masked (its prefix and last four characters)', example: 'sk_test_…4242' }),
    publishableKey: z.string().nullable(),
    webhookSecretSet: z.boolean().openapi({ description: 'Whether a webhook signing secret is stored (the gateway webhooks need it)' }),
    webhookUrl: z.string().openapi({ description: "The URL to register as the gateway's webhook endpoint" }),
    updatedAt: z.string(),
  })
  .openapi('GatewayCredentials');
export type GatewayCredentialsResource = z.infer<typeof GatewayCredentialsSchema>;

export const GatewayWebhookReceivedSchema = z.object({ received: z.literal(true) }).openapi('GatewayWebhookReceived');
