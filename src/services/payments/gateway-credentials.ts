import { activateUnconfiguredCards } from './methods-activation';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { gatewayCredentials } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError, Violations } from '../../http/errors';
import { secretBox } from '../../lib/secret-box';
import type { GatewayCredentialsResource } from '../../schemas/gateways';
import type { ServiceContext } from '../context';
import { GatewayUnavailableError } from '../ports/gateways/port';
import { checkStripeKey } from '../ports/gateways/stripe';
import { stripeEndpoint } from '../ports/gateways/stripe-client';

/**
 * A tenant's own gateway credentials (for now Stripe's, as `card_provider`), stored sealed under
 * PAYMENT_SECRETS_KEY (src/lib/secret-box.ts) with the tenant, gateway and field as associated
 * data, so a sealed value moved to another row or column does not open. Only the publishable key
 * is stored in clear. Nothing secret is ever rendered: the key shows as a hint, the webhook
 * secret as a flag.
 */
export const CREDENTIAL_GATEWAYS = ['card_provider'] as const;
export type CredentialGateway = (typeof CREDENTIAL_GATEWAYS)[number];

export interface GatewayCredentialsInput {
  secretKey: string;
  webhookSecret?: string | null;
  publishableKey?: string | null;
}

export interface StoredGatewayCredentials {
  secretKey: string;
  webhookSecret: string | null;
  publishableKey: string | null;
  updatedAt: string;
}

const sealContext = (tenantId: string, gateway: string, field: 'secretKey' | 'webhookSecret') => `gateway_credentials\n${tenantId}\n${gateway}\n${field}`;

/** `sk_test_…` → test; `rk_live_…` → live. */
export function keyMode(key: string): 'test' | 'live' {
  return /^[a-z]{2}_live_/.test(key) ? 'live' : 'test';
}

/** `sk_test_…4242`: enough to tell keys apart, nothing to use. */
export function keyHint(key: string): string {
  const prefix = /^[a-z]{2}_(test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}…${key.slice(-4)}`;
}

/** The decrypted credentials of one gateway, or null when the tenant stored none. */
export async function loadGatewayCredentials(env: Env, db: Db, tenantId: string, gateway: string): Promise<StoredGatewayCredentials | null> {
  const row = await db
    .select()
    .from(gatewayCredentials)
    .where(and(eq(gatewayCredentials.tenantId, tenantId), eq(gatewayCredentials.gateway, gateway)))
    .get();
  if (!row) return null;
  const box = secretBox(env.PAYMENT_SECRETS_KEY);
  return {
    secretKey: await box.open(row.secretKey, sealContext(tenantId, gateway, 'secretKey')),
    webhookSecret: row.webhookSecret === null ? null : await box.open(row.webhookSecret, sealContext(tenantId, gateway, 'webhookSecret')),
    publishableKey: row.publishableKey,
    updatedAt: row.updatedAt,
  };
}

/** Where the gateway sends its webhooks for this tenant. */
export function gatewayWebhookUrl(origin: string, gateway: string, tenantId: string): string {
  return `${origin}/gateway-webhooks/${gateway}/${tenantId}`;
}

function render(gateway: CredentialGateway, tenantId: string, creds: StoredGatewayCredentials, origin: string): GatewayCredentialsResource {
  return {
    gateway,
    configured: true,
    mode: keyMode(creds.secretKey),
    secretKeyHint: keyHint(creds.secretKey),
    publishableKey: creds.publishableKey,
    webhookSecretSet: creds.webhookSecret !== null,
    webhookUrl: gatewayWebhookUrl(origin, gateway, tenantId),
    updatedAt: creds.updatedAt,
  };
}

export async function listGatewayCredentials(ctx: ServiceContext, origin: string): Promise<GatewayCredentialsResource[]> {
  const rows = await ctx.db
    .select({ gateway: gatewayCredentials.gateway })
    .from(gatewayCredentials)
    .where(eq(gatewayCredentials.tenantId, ctx.tenant.id))
    .orderBy(asc(gatewayCredentials.gateway))
    .all();
  const out: GatewayCredentialsResource[] = [];
  for (const { gateway } of rows) {
    if (!(CREDENTIAL_GATEWAYS as readonly string[]).includes(gateway)) continue;
    const creds = await loadGatewayCredentials(ctx.env, ctx.db, ctx.tenant.id, gateway);
    if (creds) out.push(render(gateway as CredentialGateway, ctx.tenant.id, creds, origin));
  }
  return out;
}

export async function getGatewayCredentials(ctx: ServiceContext, gateway: CredentialGateway, origin: string): Promise<GatewayCredentialsResource> {
  const creds = await loadGatewayCredentials(ctx.env, ctx.db, ctx.tenant.id, gateway);
  if (!creds) throw ApiError.notFound('Gateway credentials');
  return render(gateway, ctx.tenant.id, creds, origin);
}

/**
 * Replaces the gateway's credentials (PUT: a field left out is removed). The key must be of the
 * tenant's mode (a test tenant's test clock must never charge real cards, and a live tenant must
 * never mark invoices paid from Stripe's test mode) and Stripe must accept it (one authenticated
 * read) before anything is stored.
 */
export async function saveGatewayCredentials(ctx: ServiceContext, gateway: CredentialGateway, input: GatewayCredentialsInput, origin: string): Promise<GatewayCredentialsResource> {
  const mode = keyMode(input.secretKey);
  const problems = new Violations();
  if (mode !== ctx.tenant.mode) problems.add('secretKey', `This is a ${mode} key; a ${ctx.tenant.mode}-mode tenant needs a ${ctx.tenant.mode} key.`, 'mode_mismatch');
  if (input.publishableKey && keyMode(input.publishableKey) !== mode) problems.add('publishableKey', `Must be of the secret key's mode (${mode}).`, 'mode_mismatch');
  problems.throwIfAny();

  let verdict: Awaited<ReturnType<typeof checkStripeKey>>;
  try {
    verdict = await checkStripeKey(input.secretKey, stripeEndpoint(ctx.env));
  } catch (err) {
    if (err instanceof GatewayUnavailableError) throw new ApiError(503, 'gateway-unavailable', 'Stripe could not be reached to check the key; nothing was stored. Try again.');
    throw err;
  }
  if (verdict === 'invalid') throw ApiError.violation('secretKey', 'Stripe does not accept this key (unknown, rolled or revoked).', 'invalid_key');
  if (verdict === 'forbidden') throw ApiError.violation('secretKey', 'This restricted key may not read PaymentIntents; it needs write access to PaymentIntents, Customers, PaymentMethods and Refunds.', 'insufficient_permissions');

  const box = secretBox(ctx.env.PAYMENT_SECRETS_KEY);
  const updatedAt = ctx.now.toISOString();
  const row = {
    tenantId: ctx.tenant.id,
    gateway,
    secretKey: await box.seal(input.secretKey, sealContext(ctx.tenant.id, gateway, 'secretKey')),
    webhookSecret: input.webhookSecret ? await box.seal(input.webhookSecret, sealContext(ctx.tenant.id, gateway, 'webhookSecret')) : null,
    publishableKey: input.publishableKey ?? null,
    updatedAt,
  };
  await ctx.db
    .insert(gatewayCredentials)
    .values(row)
    .onConflictDoUpdate({ target: [gatewayCredentials.tenantId, gatewayCredentials.gateway], set: { secretKey: row.secretKey, webhookSecret: row.webhookSecret, publishableKey: row.publishableKey, updatedAt } });
  // Cards that waited for the key are bound now (docs/payment-method-states.md).
  await activateUnconfiguredCards(ctx);
  return render(gateway, ctx.tenant.id, { secretKey: input.secretKey, webhookSecret: input.webhookSecret ?? null, publishableKey: row.publishableKey, updatedAt }, origin);
}

/**
 * Removes the credentials: charges through the gateway fail with `gateway_unconfigured` (retried on
 * the collection schedule, so storing a key again lets them through) and its webhooks are refused.
 * The card methods keep their status.
 */
export async function deleteGatewayCredentials(ctx: ServiceContext, gateway: CredentialGateway): Promise<void> {
  const removed = await ctx.db
    .delete(gatewayCredentials)
    .where(and(eq(gatewayCredentials.tenantId, ctx.tenant.id), eq(gatewayCredentials.gateway, gateway)))
    .returning({ gateway: gatewayCredentials.gateway })
    .all();
  if (removed.length === 0) throw ApiError.notFound('Gateway credentials');
}
