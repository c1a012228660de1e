import { and, asc, eq, gt, inArray, lt } from 'drizzle-orm';
import { paymentMethods } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { changePaymentMethodStatus, creditorIdOf } from './methods';

const CHUNK = 100;

/**
 * The nightly card expiry of one tenant: every `active` (or `action_required`) card whose expiry
 * month has ended (`expiresAt` < now) becomes `expired`, each through the guarded write with its
 * `payment_method.updated`. Read in chunks by id, so a method someone changed meanwhile (409) is
 * left for the next night instead of being read again. Returns how many expired.
 */
export async function expirePaymentMethods(ctx: ServiceContext): Promise<number> {
  const now = ctx.now.toISOString();
  const creditorId = await creditorIdOf(ctx);
  let expired = 0;
  let after = '';
  for (;;) {
    const rows = await ctx.db
      .select()
      .from(paymentMethods)
      .where(
        and(
          eq(paymentMethods.tenantId, ctx.tenant.id),
          eq(paymentMethods.type, 'card'),
          inArray(paymentMethods.status, ['active', 'action_required']),
          lt(paymentMethods.expiresAt, now),
          gt(paymentMethods.id, after),
        ),
      )
      .orderBy(asc(paymentMethods.id))
      .limit(CHUNK)
      .all();
    for (const row of rows) {
      try {
        await changePaymentMethodStatus(ctx, row, 'expired', {}, creditorId);
        expired += 1;
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409)) throw err;
      }
    }
    if (rows.length < CHUNK) return expired;
    after = rows[rows.length - 1]!.id;
  }
}
