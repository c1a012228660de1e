import { z } from '@hono/zod-openapi';

// Representations of the platform records: tenants, API keys, sessions, settings, the test clock.

export const HealthSchema = z.object({ status: z.literal('ok') }).openapi('Health');

export const TenantSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    countryCode: z.string(),
    defaultCurrency: z.string(),
    timeZone: z.string(),
    mode: z.enum(['live', 'test']),
    shard: z.string().openapi({ description: 'The D1 database (binding name) that holds the tenant\'s data', example: 'DB_1' }),
    plan: z.string().openapi({ description: "The plan whose rate limit the tenant's API keys get (RATE_LIMIT_PLANS)", example: 'standard' }),
    createdAt: z.string(),
  })
  .openapi('Tenant');
export type TenantResource = z.infer<typeof TenantSchema>;

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: 'First characters of the key, to recognise it' }),
    permissions: z.array(z.string()),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('ApiKey');
export type ApiKeyResource = z.infer<typeof ApiKeySchema>;

export const ApiKeyCreatedSchema = ApiKeySchema.extend({ key: z.string().openapi({ description: 'The secret; shown only once' }) }).openapi('ApiKeyCreated');
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;

export const TenantCreatedSchema = z.object({ tenant: TenantSchema, apiKey: ApiKeyCreatedSchema });
export type TenantCreated = z.infer<typeof TenantCreatedSchema>;

export const CustomerTokensSchema = z
  .object({ data: z.object({ accessToken: z.string(), refreshToken: z.string(), expiresIn: z.number().int(), tokenType: z.literal('Bearer') }) })
  .openapi('CustomerTokens');
export type CustomerTokens = z.infer<typeof CustomerTokensSchema>;

export const CustomerSessionSchema = z
  .object({
    data: z.object({
      accessToken: z.string(),
      refreshToken: z.string(),
      expiresIn: z.number().int(),
      tokenType: z.literal('Bearer'),
      customerAreaLink: z.string(),
    }),
  })
  .openapi('CustomerSession');
export type CustomerSession = z.infer<typeof CustomerSessionSchema>;

/** The route adds the description of every known key (the service's setting definitions). */
export const SettingsSchema = z.object({ settings: z.array(z.object({ key: z.string(), value: z.unknown() })) }).openapi('Settings');
export type SettingsResource = z.infer<typeof SettingsSchema>;

export const TestClockSchema = z
  .object({ now: z.string(), frozen: z.boolean().openapi({ description: 'false until the clock is first set: then it follows the real clock' }) })
  .openapi('TestClock');
export type TestClockResource = z.infer<typeof TestClockSchema>;

/** The tenant's public slug (`GET/PUT /settings/tenant-slug`): its name in the URLs of its hosted pages. */
export const TenantSlugSchema = z
  .object({ slug: z.string().nullable().openapi({ description: 'Used in page URLs (`/checkout/{slug}/{link}`) instead of the tenant id; null: the id is used.' }) })
  .openapi('TenantSlug');
export type TenantSlugResource = z.infer<typeof TenantSlugSchema>;
