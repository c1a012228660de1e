import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { EInvoiceType } from '../../documents/model';

/**
 * Stored files (R2 objects) as the API shows them (Media). One file per owner and purpose, so a
 * document is stored once however often it is rendered (docs/decisions.md, Documents).
 */
export const media = sqliteTable(
  'media',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    /** `invoice` (the document's PDF and XML), `tenant` (the letterhead logo), `offer` (the signed offer and its audit log)… */
    ownerType: text('owner_type', { enum: ['invoice', 'tenant', 'sepa_file', 'dunning_document', 'offer'] }).notNull(),
    ownerId: text('owner_id').notNull(),
    purpose: text('purpose', { enum: ['pdf', 'xml', 'logo', 'audit_log'] }).notNull(),
    isPrivate: integer('is_private', { mode: 'boolean' }).notNull(),
    mimeType: text('mime_type').notNull(),
    fileExtension: text('file_extension').notNull(),
    fileName: text('file_name').notNull(),
    /** The R2 key. */
    storageFileName: text('storage_file_name').notNull(),
    byteSize: integer('byte_size').notNull(),
    sha256: text('sha256').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('media_owner_uq').on(t.tenantId, t.ownerType, t.ownerId, t.purpose), index('media_storage_idx').on(t.storageFileName)],
);

export interface SellerSettings {
  name: string | null;
  tradingName: string | null;
  street: string | null;
  addition: string | null;
  zip: string | null;
  city: string | null;
  vatId: string | null;
  taxNumber: string | null;
  registration: string | null;
  legalInfo: string | null;
  contactName: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
}

export interface BankAccountSettings {
  iban: string;
  bic: string | null;
  accountName: string | null;
  bankName: string | null;
}

/** Title, introduction and closing of one document type in one language; null: the built-in text. */
export interface DocumentTexts {
  title: string | null;
  introduction: string | null;
  closing: string | null;
}

/** The tenant's letterhead and document texts (GET/PUT/PATCH /settings/documents). */
export const documentSettings = sqliteTable('document_settings', {
  /** The tenant's id again: one row per tenant, written through the guarded path like any resource. */
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  seller: text('seller', { mode: 'json' }).$type<SellerSettings>().notNull(),
  bankAccount: text('bank_account', { mode: 'json' }).$type<BankAccountSettings | null>(),
  /** texts[language][documentType] */
  texts: text('texts', { mode: 'json' }).$type<Record<string, Record<string, DocumentTexts>>>().notNull(),
  /** The e-invoice customers without their own setting receive; null: PDF only. */
  defaultEInvoiceType: text('default_e_invoice_type').$type<EInvoiceType | null>(),
  logoMediaId: text('logo_media_id'),
  updatedAt: text('updated_at').notNull(),
});
