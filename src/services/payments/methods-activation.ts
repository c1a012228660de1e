import { and, eq } from 'drizzle-orm';
import { customers, paymentMethods } from '../../db/schema';
import { logError } from '../../lib/log';
import type { ServiceContext } from '../context';
import { gatewayDirectory } from '../ports/gateways';
import { attachCard, cardExpiresAt } from './methods-create';
import { changePaymentMethodStatus, creditorIdOf } from './methods';
import type { CardDetails } from './methods-render';

/**
 * Cards created before the tenant stored its card gateway's key wait as `gateway_unconfigured` with
 * the token their client made. Once the key is there each is bound to a gateway customer and
 * becomes `active` with its card details (`payment_method.updated`); one the gateway refuses (an
 * unknown or expired token) stays waiting. Returns how many became active.
 */
export async function activateUnconfiguredCards(ctx: ServiceContext, limit = 100): Promise<number> {
  // A fresh gateway directory: the context's may have cached "no card gateway" before the key was stored.
  const fresh: ServiceContext = { ...ctx, gateways: gatewayDirectory(ctx.env, ctx.db, ctx.tenant.id) };
  const waiting = await ctx.db
    .select()
    .from(paymentMethods)
    .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.type, 'card'), eq(paymentMethods.status, 'gateway_unconfigured')))
    .limit(limit);
  const creditorId = await creditorIdOf(ctx);
  let activated = 0;
  for (const method of waiting) {
    if (!method.gatewayToken) continue;
    try {
      const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, method.customerId))).get();
      if (!customer) continue;
      const card = await attachCard(fresh, method.gatewayToken, customer);
      if (!card) return activated;
      const expiresAt = cardExpiresAt(card.expMonth, card.expYear);
      if (expiresAt < ctx.now.toISOString()) continue;
      const details = { brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, cardHolder: card.cardHolder } satisfies CardDetails;
      await changePaymentMethodStatus(ctx, method, 'active', { gatewayToken: card.token, details, expiresAt }, creditorId);
      activated++;
    } catch (err) {
      logError({ job: 'activate-cards', tenantId: ctx.tenant.id, paymentMethodId: method.id }, err);
    }
  }
  return activated;
}
