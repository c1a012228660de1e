import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { commitGuarded } from '../../db/commit';
import type { BatchItem } from 'drizzle-orm/batch';
import { isUniqueViolation, runBatch, type Db } from '../../db/client';
import { documentSettings, media, type BankAccountSettings, type DocumentTexts, type SellerSettings } from '../../db/schema';
import type { EInvoiceType } from '../../documents/model';
import { xrechnungSellerGaps } from '../../documents/e-invoice-gaps';
import { ApiError } from '../../http/errors';
import { emailAddress, optionalText } from '../../http/schemas';
import { DOCUMENT_TEXT_TYPES, EInvoiceTypeSchema, type DocumentSettingsResource } from '../../schemas/documents';
import type { ServiceContext } from '../context';
import { renderMedia } from './media';

// The tenant's letterhead, bank account, document texts and default e-invoice type
// (GET/PUT/PATCH /settings/documents; docs/decisions.md, Documents).

/** Fynn's default: customers without a setting of their own receive a ZUGFeRD PDF. */
export const DEFAULT_E_INVOICE_TYPE: EInvoiceType = 'zugferd';

export type DocumentSettingsRow = typeof documentSettings.$inferSelect;

const EMPTY_SELLER: SellerSettings = {
  name: null,
  tradingName: null,
  street: null,
  addition: null,
  zip: null,
  city: null,
  vatId: null,
  taxNumber: null,
  registration: null,
  legalInfo: null,
  contactName: null,
  email: null,
  phone: null,
  website: null,
};

/** The stored settings, or the defaults of a tenant that never set any (`updatedAt` ''). */
export async function loadDocumentSettings(db: Db, tenantId: string): Promise<DocumentSettingsRow> {
  const row = await db.select().from(documentSettings).where(eq(documentSettings.tenantId, tenantId)).get();
  return row ?? { id: tenantId, tenantId, seller: EMPTY_SELLER, bankAccount: null, texts: {}, defaultEInvoiceType: DEFAULT_E_INVOICE_TYPE, logoMediaId: null, updatedAt: '' };
}

/** An IBAN as the API shows it: country, check digits and the last four characters. */
export function maskIban(iban: string): string {
  return `${iban.slice(0, 4)}${'*'.repeat(Math.max(0, iban.length - 8))}${iban.slice(-4)}`;
}

export async function renderDocumentSettings(ctx: ServiceContext, s: DocumentSettingsRow): Promise<DocumentSettingsResource> {
  const logo = s.logoMediaId ? await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, s.logoMediaId))).get() : undefined;
  const texts = (lang: string) => Object.fromEntries(DOCUMENT_TEXT_TYPES.map((t) => [t, s.texts[lang]?.[t] ?? null])) as Record<(typeof DOCUMENT_TEXT_TYPES)[number], DocumentTexts | null>;
  return {
    seller: { ...EMPTY_SELLER, ...s.seller },
    bankAccount: s.bankAccount && { ...s.bankAccount, iban: maskIban(s.bankAccount.iban) },
    texts: { de: texts('de'), en: texts('en') },
    defaultEInvoiceType: s.defaultEInvoiceType,
    logo: logo ? renderMedia(logo) : null,
    eInvoiceReadiness: {
      // Documents with taxed items need one of them (BR-S-02 and siblings); the name falls back to the tenant's.
      missing: s.seller.vatId || s.seller.taxNumber ? [] : ["seller's VAT id or tax number"],
      missingForXRechnung: xrechnungSellerGaps({ city: s.seller.city, postcode: s.seller.zip, name: s.seller.contactName, phone: s.seller.phone, email: s.seller.email }),
    },
    updatedAt: s.updatedAt || null,
  };
}

const vatId = optionalText(4, 20).refine((v) => v === null || /^[A-Z]{2}[0-9A-Za-z+*.]{2,13}$/.test(v), {
  message: 'Must be a VAT id with its country prefix (e.g. DE123456789).',
  params: { code: 'invalid_vat_id' },
});

const sellerWrite = z.strictObject({
  name: optionalText(1, 255),
  tradingName: optionalText(1, 255),
  street: optionalText(1, 255),
  addition: optionalText(1, 255),
  zip: optionalText(1, 20),
  city: optionalText(1, 100),
  vatId,
  taxNumber: optionalText(1, 50),
  registration: optionalText(1, 255),
  legalInfo: optionalText(1, 500),
  contactName: optionalText(1, 255),
  email: emailAddress.nullable().optional().transform((v) => v ?? null),
  phone: optionalText(3, 50),
  website: optionalText(8, 255).refine((v) => v === null || /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(v), { message: 'Must be an http(s) URL.', params: { code: 'invalid_url' } }),
});

const bankAccountWrite = z.strictObject({
  iban: z
    .string()
    .max(42)
    .transform((v) => electronicFormatIBAN(v) ?? v)
    .refine((v) => isValidIBAN(v), { message: 'Must be a valid IBAN.', params: { code: 'invalid_iban' } }),
  bic: optionalText(8, 11)
    .transform((v) => v?.toUpperCase() ?? null)
    .refine((v) => v === null || isValidBIC(v), { message: 'Must be a valid BIC.', params: { code: 'invalid_bic' } }),
  // SEPA limits the creditor name of a credit transfer to 70 characters.
  accountName: optionalText(1, 70),
  bankName: optionalText(1, 100),
});

const textsWrite = z.strictObject({ title: optionalText(1, 255), introduction: optionalText(1, 2000), closing: optionalText(1, 2000) });
const textsPerType = z.strictObject(Object.fromEntries(DOCUMENT_TEXT_TYPES.map((t) => [t, textsWrite.nullable().optional()])) as Record<(typeof DOCUMENT_TEXT_TYPES)[number], z.ZodOptional<z.ZodNullable<typeof textsWrite>>>);

/** PUT /settings/documents: every part optional; what is left out is reset to its default. */
export const DocumentSettingsWriteSchema = z
  .strictObject({
    seller: sellerWrite.partial().nullable().optional(),
    bankAccount: bankAccountWrite.nullable().optional(),
    texts: z.strictObject({ de: textsPerType.nullable().optional(), en: textsPerType.nullable().optional() }).nullable().optional(),
    defaultEInvoiceType: EInvoiceTypeSchema.nullable().optional(),
  })
  .openapi('DocumentSettingsWrite');
export type DocumentSettingsWrite = z.output<typeof DocumentSettingsWriteSchema>;

/** The settings as a client writes them (IBAN in full): what a merge patch applies to. */
export function writableDocumentSettings(s: DocumentSettingsRow): Record<string, unknown> {
  return { seller: s.seller, bankAccount: s.bankAccount, texts: s.texts, defaultEInvoiceType: s.defaultEInvoiceType };
}

function stripNulls<T extends Record<string, unknown>>(o: T | null | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

export async function saveDocumentSettings(ctx: ServiceContext, input: DocumentSettingsWrite, read?: DocumentSettingsRow): Promise<DocumentSettingsResource> {
  const current = read ?? (await loadDocumentSettings(ctx.db, ctx.tenant.id));
  const texts: Record<string, Record<string, DocumentTexts>> = {};
  for (const lang of ['de', 'en'] as const) {
    const perType = stripNulls(input.texts?.[lang]) as Record<string, DocumentTexts>;
    if (Object.keys(perType).length > 0) texts[lang] = perType;
  }
  const changes = {
    seller: { ...EMPTY_SELLER, ...stripNulls(input.seller) } as SellerSettings,
    bankAccount: (input.bankAccount ?? null) as BankAccountSettings | null,
    texts,
    defaultEInvoiceType: input.defaultEInvoiceType === undefined ? DEFAULT_E_INVOICE_TYPE : input.defaultEInvoiceType,
  };
  return renderDocumentSettings(ctx, await writeDocumentSettings(ctx, current, changes));
}

/**
 * Inserts the tenant's first settings row, or changes the one read (guarded by its updatedAt),
 * with `statements` in the same batch.
 */
export async function writeDocumentSettings(
  ctx: ServiceContext,
  current: DocumentSettingsRow,
  changes: Partial<DocumentSettingsRow>,
  statements: BatchItem<'sqlite'>[] = [],
): Promise<DocumentSettingsRow> {
  const conflict = 'The document settings were changed concurrently; reload and retry.';
  if (current.updatedAt === '') {
    const row = { ...current, ...changes, updatedAt: ctx.now.toISOString() };
    try {
      // A concurrent first write inserted the row already: the insert fails and nothing is written.
      await runBatch(ctx.db, [ctx.db.insert(documentSettings).values(row), ...statements]);
    } catch (err) {
      if (isUniqueViolation(err)) throw ApiError.conflict(conflict, 'concurrent-update');
      throw err;
    }
    return row;
  }
  const { row } = await commitGuarded(ctx, { table: documentSettings, current, changes, statements, conflict });
  return row;
}
