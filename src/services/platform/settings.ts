import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { checkNumberFormat } from '../../billing/numbering';
import type { Db } from '../../db/client';
import { settings } from '../../db/schema';
import { Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { SettingsResource } from '../../schemas/platform';

const numberFormat = z.string().superRefine((v, ctx) => {
  const problem = checkNumberFormat(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message });
});

/**
 * A page of the tenant's own site the hosted checkout links to: an absolute https URL without
 * credentials, at most 500 characters (the page puts it in an href, so nothing but https gets in).
 */
const legalPageUrl = z
  .string()
  .max(500)
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '' && !/\s/.test(v);
      } catch {
        return false;
      }
    },
    { message: 'Must be an absolute https URL (e.g. https://example.com/terms) without user name or password.' },
  )
  .nullable();

/** The tenant settings the service knows, each with its type and default. Unknown keys are refused. */
export const SETTING_DEFINITIONS = {
  requiresManualInvoiceApproval: {
    schema: z.boolean(),
    default: false,
    description: 'Invoices created by billing runs stay drafts until approved.',
  },
  'accounting.useDebitorAccounts': {
    schema: z.boolean(),
    default: false,
    description: 'Give every new customer a ledger id (debitor account) when none is supplied.',
  },
  'accounting.debitorAccountStart': {
    schema: z.number().int().min(1).max(999_999_999),
    default: 10000,
    description: 'First debitor account number handed out as ledger id.',
  },
  'customer.numberFormat': {
    schema: numberFormat,
    default: 'C-{number:5}',
    description: 'Format of generated customer numbers.',
  },
  // Fynn's formats (RE-0000000001); tenants that existed before they became the default keep the
  // formats they numbered with (migration 0011, docs/decisions.md, Invoices and billing).
  'invoice.numberFormat': {
    schema: numberFormat,
    default: 'RE-{number:10}',
    description:
      'Format of invoice numbers: {number}, {yearLong} (2026), {year} (26), {month}, {day}, {customerNumber}; {number:10} pads to 10 digits.',
  },
  'credit.numberFormat': { schema: numberFormat, default: 'GS-{number:10}', description: 'Format of credit note numbers.' },
  'cancellation.numberFormat': { schema: numberFormat, default: 'ST-{number:10}', description: 'Format of cancellation document numbers.' },
  'refund.numberFormat': { schema: numberFormat, default: 'RF-{number:10}', description: 'Format of refund numbers.' },
  'reminder.numberFormat': { schema: numberFormat, default: 'ER-{number:10}', description: 'Format of payment reminder numbers.' },
  'dunningLetter.numberFormat': { schema: numberFormat, default: 'MA-{number:10}', description: 'Format of dunning letter numbers.' },
  'offer.numberFormat': { schema: numberFormat, default: 'AN-{number:6}', description: 'Format of offer numbers (their own gap-free range).' },
  'invoice.paymentTermDays': {
    schema: z.number().int().min(0).max(365),
    default: 14,
    description: 'Days between finalization and the due date.',
  },
  'payments.retryDays': {
    schema: z.array(z.number().int().min(1).max(60)).max(10),
    default: [3, 5, 7],
    description: 'Days between a failed automatic collection and its next attempt, one entry per retry; after the last the invoice is left to dunning.',
  },
  'sepa.creditorId': {
    schema: z.string().min(8).max(35).nullable(),
    default: null,
    description: "The tenant's SEPA creditor identifier (e.g. DE98ZZZ09999999999); required for direct-debit files.",
  },
  'sepa.format': {
    schema: z.enum(['pain.008.001.02', 'pain.008.001.08']),
    default: 'pain.008.001.02',
    description: "Message version of direct-debit files: the German banks' pain.008.001.02 or ISO's pain.008.001.08.",
  },
  'sepa.maxDebitsPerFile': {
    schema: z.number().int().min(1).max(10000),
    default: 5000,
    description: 'Most debits one direct-debit file carries (the oldest invoices first); what is left stays due for the next file. Keeps a file within a Worker\'s memory.',
  },
  'sepa.mandateReferenceFormat': {
    schema: numberFormat,
    default: 'MNDT-{number:8}',
    description: 'Format of generated SEPA mandate references.',
  },
  'checkout.termsUrl': {
    schema: legalPageUrl,
    default: null,
    description: 'The terms and conditions the hosted checkout links to; when set, an order must accept them (confirm `acceptTerms: true`).',
  },
  'checkout.privacyUrl': { schema: legalPageUrl, default: null, description: 'The privacy policy the hosted checkout links to.' },
  'checkout.withdrawalUrl': { schema: legalPageUrl, default: null, description: 'The withdrawal (cancellation) policy the hosted checkout links to.' },
  'checkout.imprintUrl': { schema: legalPageUrl, default: null, description: 'The imprint (legal notice) the hosted checkout links to.' },
  'dunning.enabled': {
    schema: z.boolean(),
    default: true,
    description: 'Run dunning for unpaid invoices.',
  },
} as const;

export type SettingKey = keyof typeof SETTING_DEFINITIONS;
export type SettingValues = { [K in SettingKey]: z.infer<(typeof SETTING_DEFINITIONS)[K]['schema']> };

function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTING_DEFINITIONS, key);
}

/** The query that reads a tenant's stored settings; pair with `effectiveSettings`. */
export function selectSettings(db: Db, tenantId: string) {
  return db.select({ key: settings.key, value: settings.value }).from(settings).where(eq(settings.tenantId, tenantId));
}

export function effectiveSettings(rows: { key: string; value: unknown }[]): SettingValues {
  const values = Object.fromEntries(Object.entries(SETTING_DEFINITIONS).map(([k, d]) => [k, d.default])) as Record<string, unknown>;
  for (const row of rows) if (isSettingKey(row.key)) values[row.key] = row.value;
  return values as SettingValues;
}

export async function loadSettings(db: Db, tenantId: string): Promise<SettingValues> {
  return effectiveSettings(await selectSettings(db, tenantId));
}

export function settingsList(values: SettingValues): SettingsResource {
  return { settings: Object.entries(values).map(([key, value]) => ({ key, value })) };
}

export async function updateSettings(ctx: ServiceContext, entries: { key: string; value?: unknown }[]) {
  const v = new Violations();
  const seen = new Set<string>();
  const valid: { key: SettingKey; value: unknown }[] = [];
  entries.forEach((entry, i) => {
    if (!isSettingKey(entry.key)) {
      v.add(`settings[${i}].key`, `Unknown setting "${entry.key}".`, 'unknown_setting');
      return;
    }
    if (seen.has(entry.key)) {
      v.add(`settings[${i}].key`, `The setting "${entry.key}" appears more than once.`, 'duplicate_setting');
      return;
    }
    seen.add(entry.key);
    const parsed = SETTING_DEFINITIONS[entry.key].schema.safeParse(entry.value);
    if (!parsed.success) {
      v.add(`settings[${i}].value`, parsed.error.issues[0]?.message ?? 'Invalid value.', 'invalid_value');
      return;
    }
    valid.push({ key: entry.key, value: parsed.data });
  });
  v.throwIfAny();
  if (valid.length > 0) {
    const now = ctx.now.toISOString();
    // A JSON null is no value the column can hold: a setting set to null is removed, and its
    // default (null for every nullable setting) applies again.
    const [first, ...rest] = valid.map((s) =>
      s.value === null
        ? ctx.db.delete(settings).where(and(eq(settings.tenantId, ctx.tenant.id), eq(settings.key, s.key)))
        : ctx.db
        .insert(settings)
        .values({ tenantId: ctx.tenant.id, key: s.key, value: s.value, updatedAt: now })
        .onConflictDoUpdate({ target: [settings.tenantId, settings.key], set: { value: s.value, updatedAt: now } }),
    );
    await ctx.db.batch([first!, ...rest]);
  }
  return loadSettings(ctx.db, ctx.tenant.id);
}

