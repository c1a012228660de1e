import { and, eq, gt, isNotNull, lt, sql } from 'drizzle-orm';
import { isGuardFailure, requireCondition, requirePreviousChange } from '../../db/client';
import { customerOtpCodes, customers, customerSessions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { inBackground } from '../../lib/background';
import { systemNow } from '../../lib/clock';
import { hmacSha256Hex, timingSafeEqual } from '../../lib/crypto';
import type { CustomerSession } from '../../schemas/platform';
import type { ServiceContext } from '../context';
import { customerExists } from '../customers/guards';
import { jwtKey, newCustomerSession } from './customer-sessions';

// The customer's one-time-code login (POST /public/customer/request-otp, /public/customer/otp-login),
// as Fynn's checkout uses it. See docs/decisions.md, Auth and tenancy.

export const OTP = {
  digits: 6,
  ttlMs: 10 * 60 * 1000,
  /** Wrong codes a code survives; the next attempt finds none. */
  maxAttempts: 5,
  /** Codes sent per customer and window; further requests send nothing (and answer the same). */
  maxCodesPerWindow: 5,
  windowMs: 60 * 60 * 1000,
} as const;

/** The answer to every request-otp, whether or not the address belongs to a customer. */
export const OTP_REQUESTED = { success: true } as const;

/** A uniformly random code of `OTP.digits` digits. */
export function randomCode(): string {
  const range = 10 ** OTP.digits;
  const limit = Math.floor(2 ** 32 / range) * range;
  const buf = new Uint32Array(1);
  do crypto.getRandomValues(buf);
  while (buf[0]! >= limit);
  return String(buf[0]! % range).padStart(OTP.digits, '0');
}

/**
 * Codes are stored as an HMAC under the server secret, bound to tenant and customer: a plain hash of
 * six digits would be reversed by trying all million.
 */
function codeHash(ctx: ServiceContext, customerId: string, code: string): Promise<string> {
  return hmacSha256Hex(jwtKey(ctx.env), `customer-otp:${ctx.tenant.id}:${customerId}:${code}`);
}

async function findByLogin(ctx: ServiceContext, email: string) {
  return ctx.db
    .select({ id: customers.id, email: customers.email, status: customers.status, language: customers.language, firstName: customers.firstName })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.emailKey, email.trim().toLowerCase())))
    .get();
}

function otpMail(language: 'de' | 'en', code: string, firstName: string | null) {
  const minutes = OTP.ttlMs / 60_000;
  return language === 'de'
    ? {
        subject: 'Ihr Anmeldecode',
        body: `${firstName ? `Hallo ${firstName},` : 'Hallo,'}\n\nIhr Anmeldecode lautet ${code}. Er gilt ${minutes} Minuten und nur einmal.\n\nWenn Sie keinen Code angefordert haben, ignorieren Sie diese E-Mail.`,
      }
    : {
        subject: 'Your login code',
        body: `${firstName ? `Hello ${firstName},` : 'Hello,'}\n\nYour login code is ${code}. It is valid for ${minutes} minutes and can be used once.\n\nIf you did not ask for a code, ignore this e-mail.`,
      };
}

/**
 * POST /public/customer/request-otp: the answer is the same whoever the address belongs to, and the
 * work — the lookup, the code, its mail — waits until that answer is out (`answered`, see
 * `streamedAnswer`), so neither the answer nor its timing tells whether the address is a
 * customer's (docs/decisions.md, Mail: no timing oracle).
 */
export function requestOtpAfter(ctx: ServiceContext, email: string, answered: Promise<void>): typeof OTP_REQUESTED {
  inBackground(ctx.waitUntil, { job: 'customer-otp', tenantId: ctx.tenant.id }, async () => {
    await answered;
    await requestOtp(ctx, email);
  });
  return OTP_REQUESTED;
}

/**
 * Sends a new code to an active customer with this login e-mail; it replaces any earlier code.
 * Always answers the same, so the answer never tells whether the address is a customer's.
 */
export async function requestOtp(ctx: ServiceContext, email: string): Promise<typeof OTP_REQUESTED> {
  const customer = await findByLogin(ctx, email);
  if (!customer || customer.status !== 'STATUS_ACTIVE') return OTP_REQUESTED;
  const code = randomCode();
  const now = systemNow();
  const nowIso = now.toISOString();
  const windowStart = new Date(now.getTime() - OTP.windowMs).toISOString();
  const t = customerOtpCodes;
  const newWindow = sql`${t.windowStartedAt} <= ${windowStart}`;
  // One statement decides, also under concurrent requests, whether another code may go out this hour.
  const stored = await ctx.db
    .insert(t)
    .values({
      tenantId: ctx.tenant.id,
      customerId: customer.id,
      codeHash: await codeHash(ctx, customer.id, code),
      expiresAt: new Date(now.getTime() + OTP.ttlMs).toISOString(),
      attempts: 0,
      windowStartedAt: nowIso,
      codesInWindow: 1,
      createdAt: nowIso,
    })
    .onConflictDoUpdate({
      target: [t.tenantId, t.customerId],
      set: {
        codeHash: sql`excluded.code_hash`,
        expiresAt: sql`excluded.expires_at`,
        attempts: 0,
        createdAt: sql`excluded.created_at`,
        codesInWindow: sql`CASE WHEN ${newWindow} THEN 1 ELSE ${t.codesInWindow} + 1 END`,
        windowStartedAt: sql`CASE WHEN ${newWindow} THEN excluded.window_started_at ELSE ${t.windowStartedAt} END`,
      },
      setWhere: sql`${newWindow} OR ${t.codesInWindow} < ${OTP.maxCodesPerWindow}`,
    })
    .returning({ customerId: t.customerId })
    .get();
  if (!stored) return OTP_REQUESTED;
  const mail = otpMail(customer.language, code, customer.firstName);
  await ctx.mailer.send({ tenantId: ctx.tenant.id, to: customer.email, subject: mail.subject, body: mail.body, attachments: [] });
  return OTP_REQUESTED;
}

const wrongCode = () => ApiError.unauthorized('The e-mail address or the code is wrong, or the code has expired.');

/**
 * Exchanges e-mail and code for a customer session (the tokens POST /customers/{id}/authenticate
 * issues). Every try counts against the code before it is compared; a code works once.
 */
export async function loginWithOtp(ctx: ServiceContext, email: string, code: string, origin: string): Promise<CustomerSession> {
  const customer = await findByLogin(ctx, email);
  if (!customer) throw wrongCode();
  const t = customerOtpCodes;
  const ofCustomer = and(eq(t.tenantId, ctx.tenant.id), eq(t.customerId, customer.id));
  const attempt = await ctx.db
    .update(t)
    .set({ attempts: sql`${t.attempts} + 1` })
    .where(and(ofCustomer, isNotNull(t.codeHash), gt(t.expiresAt, systemNow().toISOString()), lt(t.attempts, OTP.maxAttempts)))
    .returning({ codeHash: t.codeHash })
    .get();
  if (!attempt?.codeHash || !timingSafeEqual(attempt.codeHash, await codeHash(ctx, customer.id, code.trim()))) throw wrongCode();
  if (customer.status !== 'STATUS_ACTIVE') throw ApiError.unauthorized('The customer can no longer sign in.');

  const session = await newCustomerSession(ctx.env, ctx.tenant.id, customer.id, origin);
  try {
    // Spending the code is guarded by the code itself: of two concurrent logins with it, one wins.
    await ctx.db.batch([
      ctx.db.update(t).set({ codeHash: null }).where(and(ofCustomer, eq(t.codeHash, attempt.codeHash))),
      requirePreviousChange(ctx.db),
      ctx.db.insert(customerSessions).values(session.row),
      requireCondition(ctx.db, customerExists(ctx.tenant.id, customer.id)),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw wrongCode();
    throw err;
  }
  return session.response;
}
