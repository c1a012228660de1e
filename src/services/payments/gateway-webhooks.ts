import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import { systemNow } from '../../lib/clock';
import { openTenantContext } from '../context';
import { GatewaySignatureError } from '../ports/gateways/port';
import { applyGatewayEvent } from './collection';

/**
 * Incoming gateway webhooks (`POST /gateway-webhooks/{gateway}/{tenant}`): the tenant in the path
 * names the credentials whose signing secret must verify the raw body. An unknown tenant or
 * gateway, a gateway without webhooks or without a stored secret, and a bad signature all get the
 * same 400, so the answer never tells which it was. The signature's timestamp is judged by the
 * real clock (the gateway's), never a test clock. A verified event is applied once per transaction
 * state (applyGatewayEvent), so a redelivered event changes nothing; events we do not act on are
 * acknowledged too, or the gateway would keep sending them.
 */
const REFUSED = 'The webhook could not be verified.';

export async function receiveGatewayWebhook(
  init: { env: Env; waitUntil?(p: Promise<unknown>): void },
  gatewayName: string,
  tenantId: string,
  rawBody: string,
  headers: Headers,
): Promise<{ received: true; applied: boolean }> {
  const refused = () => new ApiError(400, 'webhook-not-verified', REFUSED);
  // The path's tenant says which shard holds its credentials (docs/decisions.md, Tenancy and shards).
  const ctx = await openTenantContext(init.env, tenantId, init.waitUntil ? { waitUntil: init.waitUntil } : {});
  if (!ctx) throw refused();
  const gateway = await ctx.gateways.get(gatewayName);
  if (!gateway?.verifyWebhook) throw refused();
  let event;
  try {
    event = await gateway.verifyWebhook(rawBody, headers, systemNow());
  } catch (err) {
    if (err instanceof GatewaySignatureError) throw refused();
    throw err;
  }
  if (event.kind === 'ignored') return { received: true, applied: false };
  const { applied } = await applyGatewayEvent(ctx, gatewayName, event);
  return { received: true, applied };
}
