import { z } from '@hono/zod-openapi';
import { E_INVOICE_TYPES } from '../documents/model';

// Stored files (Media) and the tenant's document settings.

export const MediaSchema = z
  .object({
    id: z.string(),
    isPrivate: z.boolean().openapi({ description: 'Always true: files are served only through signed links.' }),
    mimeType: z.string(),
    fileExtension: z.string(),
    fileName: z.string(),
    storageFileName: z.string(),
    createdAt: z.string(),
  })
  .openapi('Media');
export type MediaResource = z.infer<typeof MediaSchema>;

export const EInvoiceTypeSchema = z.enum(E_INVOICE_TYPES).openapi('EInvoiceType', {
  description:
    'zugferd: a ZUGFeRD/Factur-X PDF/A-3 with the EN16931 CII XML embedded (and the XML on its own); xrechnung: XRechnung 3.0 CII XML with the Leitweg-ID as buyer reference, and a PDF; cii: EN16931 CII XML and a PDF; ubl: EN16931 UBL 2.1 XML and a PDF.',
});

const SellerSchema = z.object({
  name: z.string().nullable(),
  tradingName: z.string().nullable(),
  street: z.string().nullable(),
  addition: z.string().nullable(),
  zip: z.string().nullable(),
  city: z.string().nullable(),
  vatId: z.string().nullable(),
  taxNumber: z.string().nullable(),
  registration: z.string().nullable(),
  legalInfo: z.string().nullable(),
  contactName: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
});

const TextsSchema = z.object({ title: z.string().nullable(), introduction: z.string().nullable(), closing: z.string().nullable() });
export const DOCUMENT_TEXT_TYPES = ['invoice', 'credit_note', 'cancellation', 'refund'] as const;
const TextsPerTypeSchema = z.object(Object.fromEntries(DOCUMENT_TEXT_TYPES.map((t) => [t, TextsSchema.nullable()])) as Record<(typeof DOCUMENT_TEXT_TYPES)[number], z.ZodNullable<typeof TextsSchema>>);

export const DocumentSettingsSchema = z
  .object({
    seller: SellerSchema.openapi({ description: "The letterhead; missing fields fall back to the tenant's name and country." }),
    bankAccount: z
      .object({
        iban: z.string().openapi({ description: 'Masked: the country code, check digits and the last four characters.' }),
        bic: z.string().nullable(),
        accountName: z.string().nullable(),
        bankName: z.string().nullable(),
      })
      .nullable(),
    texts: z.object({ de: TextsPerTypeSchema, en: TextsPerTypeSchema }),
    defaultEInvoiceType: EInvoiceTypeSchema.nullable().openapi({ description: 'For customers without their own eInvoiceType; null: PDF only.' }),
    logo: MediaSchema.nullable(),
    eInvoiceReadiness: z
      .object({
        missing: z.array(z.string()).openapi({ description: 'What the letterhead lacks for any e-invoice; empty when complete.' }),
        missingForXRechnung: z.array(z.string()).openapi({ description: 'What it lacks in addition for XRechnung.' }),
      })
      .openapi({
        description:
          "Read-only. A document whose e-invoice would break EN 16931's rules gets its PDF alone (xmlFile null): fill these in before billing B2B customers. The customer's own data (VAT id for reverse charge, address and e-mail for XRechnung) is checked per document.",
      }),
    updatedAt: z.string().nullable(),
  })
  .openapi('DocumentSettings');
export type DocumentSettingsResource = z.infer<typeof DocumentSettingsSchema>;
