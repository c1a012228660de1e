import { z } from '@hono/zod-openapi';
import { MediaSchema } from './documents';

// SEPA files: pain.008 direct debits the tenant's bank collects, pain.001 credit transfers it pays out.

export const SEPA_FILE_TYPES = ['direct_debit', 'credit_transfer'] as const;
export type SepaFileType = (typeof SEPA_FILE_TYPES)[number];
export const PAIN_008_FORMATS = ['pain.008.001.02', 'pain.008.001.08'] as const;
export const PAIN_001_FORMATS = ['pain.001.001.03', 'pain.001.001.09'] as const;
export const SEPA_FORMATS = [...PAIN_008_FORMATS, ...PAIN_001_FORMATS] as const;
export type SepaFormat = (typeof SEPA_FORMATS)[number];

export const SepaFileSchema = z
  .object({
    id: z.string(),
    type: z.enum(SEPA_FILE_TYPES).openapi({ description: 'direct_debit: pain.008, the customers are debited; credit_transfer: pain.001, refunds and credit notes are paid out.' }),
    format: z.enum(SEPA_FORMATS),
    messageId: z.string().openapi({ description: 'GrpHdr/MsgId: the bank reports the file under it.' }),
    collectionDate: z.string().openapi({ description: 'Requested collection date (debits) or execution date (transfers), YYYY-MM-DD.' }),
    numberOfTransactions: z.number().int(),
    controlSum: z.string().openapi({ description: 'The sum of the amounts (CtrlSum), a decimal string.', example: '119.00' }),
    currencyCode: z.string(),
    createdAt: z.string(),
    file: MediaSchema.nullable().openapi({ description: 'The XML; download it through PUT /sepa-xml/{id}/download-link.' }),
  })
  .openapi('SepaFile');
export type SepaFileResource = z.infer<typeof SepaFileSchema>;

export const SepaFileTransactionSchema = z
  .object({
    id: z.string().openapi({ description: 'The transaction (GET /transactions/{id}).' }),
    type: z.enum(['payment', 'refund']),
    status: z.string(),
    customer: z.object({ id: z.string() }),
    invoice: z.object({ id: z.string(), number: z.string().nullable() }).nullable().openapi({ description: 'The invoice debited, or the credit note / invoice a transfer pays back.' }),
    amount: z.string(),
    sequenceType: z.enum(['FRST', 'RCUR']).nullable().openapi({ description: 'Debits: FRST for the first debit of a mandate, RCUR after it.' }),
    endToEndId: z.string().openapi({ description: 'EndToEndId; bank statements and returns name the transaction by it.' }),
    mandateReference: z.string().nullable(),
    iban: z.string().nullable().openapi({ description: "The customer's IBAN, masked." }),
  })
  .openapi('SepaFileTransaction');
export type SepaFileTransactionResource = z.infer<typeof SepaFileTransactionSchema>;

export const SepaFileDetailSchema = SepaFileSchema.extend({ transactions: z.array(SepaFileTransactionSchema) }).openapi('SepaFileDetail');
export type SepaFileDetailResource = z.infer<typeof SepaFileDetailSchema>;

export const SepaSkippedSchema = z
  .object({
    invoice: z.object({ id: z.string(), number: z.string().nullable() }).nullable(),
    transactionId: z.string().nullable().openapi({ description: 'A pending refund that could not be paid out.' }),
    reason: z.string(),
  })
  .openapi('SepaSkipped');
export type SepaSkipped = z.infer<typeof SepaSkippedSchema>;

export const SepaFileCreatedSchema = SepaFileSchema.extend({
  skipped: z.array(SepaSkippedSchema).openapi({ description: 'Due items left out of the file because their data cannot be written (no account holder name, no mandate, …); they stay due. The transactions of the file: GET /sepa-xml/{id}.' }),
}).openapi('SepaFileCreated');
export type SepaFileCreatedResource = z.infer<typeof SepaFileCreatedSchema>;

export const SepaDownloadLinkSchema = z
  .object({
    url: z.string().openapi({ description: 'The XML, through a signed link.' }),
    expiresAt: z.string(),
  })
  .openapi('SepaDownloadLink');
export type SepaDownloadLink = z.infer<typeof SepaDownloadLinkSchema>;
