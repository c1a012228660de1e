import { and, eq, sql } from 'drizzle-orm';
import { isSEPACountry } from 'ibantools';
import { formatNumber } from '../../billing/numbering';
import { localDay } from '../../billing/periods';
import { isGuardFailure, isUniqueViolation, requireCondition } from '../../db/client';
import { customers, paymentMethods } from '../../db/schema';
import { Checker, sepaText } from '../../documents/sepa/rules';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { PaymentMethodResource, PaymentMethodStatus, PaymentMethodType } from '../../schemas/payment-methods';
import { nextSequenceValue } from '../common/sequences';
import { maskIban } from '../documents/settings';
import type { ServiceContext } from '../context';
import { loadSettings, SETTING_DEFINITIONS } from '../platform/settings';
import { GatewayUnavailableError, type AttachedCard } from '../ports/gateways/port';
import { isTestingToken, TESTING_TOKENS } from '../ports/gateways/testing';
import { otherDefaults, takeDefault } from './methods';
import { defaultMethodName, renderPaymentMethod, type CardDetails, type PaymentMethodRow, type SepaDetails } from './methods-render';

// POST /payment-methods: one method of a customer, checked completely before anything is written
// or any gateway is called. The SEPA rules are the ones the pain.008 writer applies
// (src/documents/sepa/rules.ts), so a mandate accepted here never breaks a file later.

/**
 * A SEPA debtor's name: letters the pain.008 writer transliterates (ä → ae, é → e) are fine; what it
 * could only replace by a space (@, #, emoji) is refused, so the name reaches the bank as given.
 */
export function checkAccountHolder(checker: Checker, v: Violations, path: string, holder: string): void {
  const outside = [...holder].filter((ch) => !/\s/.test(ch) && sepaText(ch, 10) === '');
  if (outside.length) v.add(path, `Must use the SEPA character set (letters, digits and / - ? : ( ) . , ' +); not: ${[...new Set(outside)].join(' ')}`, 'invalid_characters');
  else checker.text(path, holder, 70, true);
}

export interface SepaDebitInput {
  iban: string;
  bic?: string | null;
  accountHolder: string;
  mandateReference?: string | null;
  /** YYYY-MM-DD. */
  signingDate?: string | null;
}

export interface PaymentMethodInput {
  customer: string;
  type: PaymentMethodType;
  gatewayName?: string | null;
  name?: string | null;
  default?: boolean | null;
  enabled?: boolean | null;
  data?: string[] | null;
  source?: PaymentMethodResource['source'] | null;
  sepaDebit?: SepaDebitInput | null;
  token?: string | null;
}

/** The gateway each type uses unless told otherwise, and the ones it may name. */
const GATEWAYS: Record<PaymentMethodType, readonly string[]> = {
  sepa_debit: ['sepa_debit'],
  card: ['card_provider'],
  bank_transfer: ['bank_transfer'],
  fake_provider: ['testing', 'fake_provider'],
};

const MANDATE_SEQUENCE = 'sepa_mandate';
const DEFAULT_MANDATE_FORMAT = SETTING_DEFINITIONS['sepa.mandateReferenceFormat'].default;

function sepaViolations(checker: Checker, v: Violations): void {
  for (const problem of checker.violations) v.add(problem.path, problem.message, problem.rule);
}

/** Whether `ref` may stand in a pain.008 `MndtId` (the EPC id rules). */
function isSepaId(ref: string): boolean {
  const checker = new Checker();
  checker.id('ref', ref);
  return checker.violations.length === 0;
}

interface CheckedSepa {
  iban: string;
  bic: string | null;
  accountHolder: string;
  mandateReference: string | null;
  signingDate: string;
}

function checkSepa(ctx: ServiceContext, input: SepaDebitInput, v: Violations): CheckedSepa {
  const checker = new Checker();
  const iban = checker.iban('sepaDebit.iban', input.iban);
  if (checker.violations.length === 0 && !isSEPACountry(iban.slice(0, 2))) {
    v.add('sepaDebit.iban', 'Must be an IBAN of a country of the SEPA scheme.', 'not_sepa');
  }
  const bic = checker.bic('sepaDebit.bic', input.bic ?? undefined) ?? null;
  const holder = input.accountHolder.trim();
  checkAccountHolder(checker, v, 'sepaDebit.accountHolder', holder);
  const mandateReference = input.mandateReference?.trim() || null;
  if (mandateReference) checker.id('sepaDebit.mandateReference', mandateReference);
  const today = localDay(ctx.now, ctx.tenant.timeZone);
  const signingDate = input.signingDate ?? today;
  if (signingDate > today) v.add('sepaDebit.signingDate', `Must not be in the future (today is ${today}).`, 'in_future');
  sepaViolations(checker, v);
  return { iban, bic, accountHolder: holder, mandateReference, signingDate };
}

async function mandateTaken(ctx: ServiceContext, reference: string): Promise<boolean> {
  const row = await ctx.db
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.mandateReference, reference)))
    .get();
  return row !== undefined;
}

/**
 * A mandate reference from the tenant's own number range (`sepa.mandateReferenceFormat`). A format
 * whose result is no SEPA id (its literal `_` or `#`, a customer number with spaces) falls back to
 * the default format with the same number; a number a tenant already used by hand is skipped.
 */
async function generateMandateReference(ctx: ServiceContext, format: string, customerNumber: string): Promise<string> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const number = await nextSequenceValue(ctx.db, ctx.tenant.id, MANDATE_SEQUENCE, 1);
    const values = { number, date: ctx.now, timeZone: ctx.tenant.timeZone, customerNumber };
    let reference = formatNumber(format, values);
    if (!isSepaId(reference)) reference = formatNumber(DEFAULT_MANDATE_FORMAT, values);
    if (!(await mandateTaken(ctx, reference))) return reference;
  }
  throw ApiError.conflict('No free mandate reference was found in the number range; give one explicitly.', 'mandate-reference-exhausted');
}

/** The first day after the card's expiry month, less a millisecond: the card works through its month. */
export function cardExpiresAt(expMonth: number, expYear: number): string {
  return new Date(Date.UTC(expYear, expMonth, 1) - 1).toISOString();
}

export type CardCustomer = Pick<typeof customers.$inferSelect, 'id' | 'email' | 'firstName' | 'lastName' | 'companyName' | 'customerNumber'>;

/** Binds the card the gateway's client created to the customer; null while the tenant has no card gateway. */
export async function attachCard(ctx: ServiceContext, token: string, customer: CardCustomer): Promise<AttachedCard | null> {
  const gateway = await ctx.gateways.get('card_provider');
  if (!gateway?.attachCard) return null;
  const person = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  try {
    // The same card for the same customer is the same request: a retry after a timeout reuses the key.
    return await gateway.attachCard(token, { id: customer.id, email: customer.email, name: customer.companyName ?? (person || null) }, `attach-card:${customer.id}:${token}`);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof GatewayUnavailableError) {
      throw new ApiError(503, 'gateway-unavailable', 'The card gateway could not be reached; nothing was stored. Try again.', undefined, { 'Retry-After': '30' });
    }
    const reason = String((err as Error)?.message ?? err).split(token).join('…');
    throw ApiError.violation('token', `The card gateway did not accept this payment method: ${reason}`, 'gateway_rejected');
  }
}

export async function createPaymentMethod(ctx: ServiceContext, input: PaymentMethodInput): Promise<PaymentMethodResource> {
  const v = new Violations();
  const allowed = GATEWAYS[input.type];
  const gatewayName = input.gatewayName ?? allowed[0]!;
  if (!allowed.includes(gatewayName)) v.add('gatewayName', `A ${input.type} method uses the gateway ${allowed.join(' or ')}.`, 'invalid_gateway');

  let sepa: CheckedSepa | null = null;
  if (input.type === 'sepa_debit') {
    if (!input.sepaDebit) v.add('sepaDebit', 'Required for a sepa_debit method.', 'required');
    else sepa = checkSepa(ctx, input.sepaDebit, v);
  } else if (input.sepaDebit) {
    v.add('sepaDebit', 'Only a sepa_debit method has SEPA details.', 'not_allowed');
  }

  const token = input.token ?? null;
  if (input.type === 'card' && !token) v.add('token', "Required for a card: the card gateway's payment method id (e.g. pm_…).", 'required');
  if (input.type === 'fake_provider' && token && !isTestingToken(token)) {
    v.add('token', `Must be one of the testing tokens: ${Object.keys(TESTING_TOKENS).join(', ')}.`, 'unknown_token');
  }
  if ((input.type === 'sepa_debit' || input.type === 'bank_transfer') && token) v.add('token', `A ${input.type} method has no gateway token.`, 'not_allowed');

  const enabled = input.enabled ?? true;
  if (input.default === true && !enabled) v.add('default', 'A disabled payment method cannot be the default.', 'disabled');

  const customer = await ctx.db
    .select({
      id: customers.id,
      email: customers.email,
      firstName: customers.firstName,
      lastName: customers.lastName,
      companyName: customers.companyName,
      customerNumber: customers.customerNumber,
    })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, input.customer)))
    .get();
  if (!customer) v.add('customer', 'No such customer.', 'not_found');
  if (sepa?.mandateReference && (await mandateTaken(ctx, sepa.mandateReference))) {
    v.add('sepaDebit.mandateReference', 'Another payment method of this creditor already uses this mandate reference.', 'not_unique');
  }
  v.throwIfAny();

  const settings = await loadSettings(ctx.db, ctx.tenant.id);
  const creditorId = settings['sepa.creditorId'];
  const now = ctx.now.toISOString();
  let status: PaymentMethodStatus = 'active';
  let details: Record<string, unknown> = {};
  let expiresAt: string | null = null;
  let gatewayToken = token;

  if (input.type === 'card') {
    const card = await attachCard(ctx, token!, customer!);
    if (!card) {
      status = 'gateway_unconfigured';
    } else {
      expiresAt = cardExpiresAt(card.expMonth, card.expYear);
      if (expiresAt < now) throw ApiError.violation('token', `The card expired at the end of ${card.expYear}-${String(card.expMonth).padStart(2, '0')}.`, 'card_expired');
      details = { brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, cardHolder: card.cardHolder } satisfies CardDetails;
      gatewayToken = card.token;
    }
  }

  const generated = sepa !== null && sepa.mandateReference === null;
  const mandateReference = sepa ? (sepa.mandateReference ?? (await generateMandateReference(ctx, settings['sepa.mandateReferenceFormat'], customer!.customerNumber))) : null;
  if (sepa) details = { iban: maskIban(sepa.iban), bic: sepa.bic, accountHolder: sepa.accountHolder } satisfies SepaDetails;

  const row: PaymentMethodRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    customerId: input.customer,
    gatewayName,
    type: input.type,
    name: null,
    status,
    isDefault: false,
    enabled,
    createdAt: now,
    updatedAt: now,
    source: input.source ?? 'api',
    referenceId: mandateReference,
    data: input.data ?? [],
    expiresAt,
    details,
    iban: sepa?.iban ?? null,
    gatewayToken,
    mandateReference,
    mandateSignedAt: sepa?.signingDate ?? null,
    mandateFirstUsedAt: null,
    revokedAt: null,
  };
  row.name = input.name ?? defaultMethodName(row);

  const previous = await otherDefaults(ctx, row.customerId, row.id);
  // Without a word from the client, a customer's first usable method becomes its default.
  row.isDefault = input.default ?? (previous.length === 0 && enabled && status === 'active');
  const resource = renderPaymentMethod(row, creditorId);
  const customerExists = sql`EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${ctx.tenant.id} AND id = ${row.customerId})`;
  try {
    await ctx.db.batch([
      ctx.db.insert(paymentMethods).values(row),
      // The customer must still be there: a concurrent delete removes its methods in its own batch.
      requireCondition(ctx.db, customerExists),
      ...(row.isDefault ? takeDefault(ctx, row.customerId, row.id, previous, creditorId) : []),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'payment_method.created', resourceId: row.id, data: resource, now: ctx.now }),
    ]);
  } catch (err) {
    if (isUniqueViolation(err, 'mandate_reference')) {
      if (generated) throw ApiError.conflict('The generated mandate reference was taken concurrently; retry.', 'concurrent-update');
      throw ApiError.violation('sepaDebit.mandateReference', 'Another payment method of this creditor already uses this mandate reference.', 'not_unique');
    }
    if (!isGuardFailure(err)) throw err;
    const stillThere = await ctx.db.get<{ ok: number }>(sql`SELECT CASE WHEN ${customerExists} THEN 1 ELSE 0 END AS ok`);
    if (!stillThere?.ok) throw ApiError.violation('customer', 'No such customer.', 'not_found');
    throw ApiError.conflict("The customer's default payment method was changed concurrently; retry.", 'concurrent-update');
  }
  return resource;
}
