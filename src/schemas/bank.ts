import { z } from '@hono/zod-openapi';

// Bank account transactions (the booked lines of imported statements and open-banking pulls) and
// their assignments to invoices (spec §2.5). Amounts are money objects in the line's currency, as
// on invoices.

const moneySchema = z.object({ amount: z.string(), currencyCode: z.string() });

export const BANK_ACCOUNT_TRANSACTION_STATUSES = ['STATUS_RECEIVED', 'STATUS_BOOKED', 'STATUS_MANUAL_MATCHING_REQUIRED', 'STATUS_IGNORED'] as const;

export const BankAccountTransactionAssignmentSchema = z
  .object({
    id: z.string(),
    bankAccountTransaction: z.object({ id: z.string() }),
    invoice: z.object({ id: z.string(), number: z.string().nullable() }),
    transaction: z.object({ id: z.string() }).nullable().openapi({ description: 'The payment (or, for a returned debit, the return) it wrote; null while suggested' }),
    amount: moneySchema.openapi({ description: 'What it assigns to the invoice; negative for a returned debit' }),
    fee: moneySchema.openapi({ description: "The bank's fee on it (a returned debit's return charge)" }),
    status: z.enum(['suggested', 'accepted']),
    matchedBy: z.enum(['reference', 'end_to_end', 'mandate', 'amount_iban', 'manual']),
    matchedAt: z.string(),
  })
  .openapi('BankAccountTransactionAssignment');
export type BankAccountTransactionAssignmentResource = z.infer<typeof BankAccountTransactionAssignmentSchema>;

export const BankAccountTransactionSchema = z
  .object({
    id: z.string(),
    status: z.enum(BANK_ACCOUNT_TRANSACTION_STATUSES),
    import: z.object({ id: z.string() }).nullable().openapi({ description: 'The statement import it came from' }),
    openBankingAccount: z.object({ id: z.string() }).nullable(),
    accountIban: z.string().nullable().openapi({ description: 'The account it was booked on, masked' }),
    bookingDate: z.string().nullable(),
    valueDate: z.string().nullable(),
    amount: moneySchema.openapi({ description: 'Signed: credits (money in) positive, debits negative' }),
    assignedAmount: moneySchema.openapi({ description: 'What accepted assignments cover' }),
    remainder: moneySchema.openapi({ description: 'amount − assignedAmount: an over-payment or what is still to match' }),
    currencyCode: z.string(),
    counterpartyName: z.string().nullable(),
    counterpartyIban: z.string().nullable().openapi({ description: 'Masked', example: 'DE89**************3000' }),
    remittanceInformation: z.string().nullable(),
    endToEndId: z.string().nullable(),
    mandateReference: z.string().nullable(),
    returnReason: z.string().nullable().openapi({ description: 'Of a returned direct debit: the ISO reason (AM04, MD06, …)' }),
    returnFee: moneySchema.nullable().openapi({ description: "Of a returned direct debit: the bank's charge" }),
    assignments: z.array(BankAccountTransactionAssignmentSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('BankAccountTransaction');
export type BankAccountTransactionResource = z.infer<typeof BankAccountTransactionSchema>;

export const BankImportResultSchema = z
  .object({
    import: z
      .object({
        id: z.string(),
        format: z.string().openapi({ example: 'camt.053.001.02' }),
        entries: z.number().int().openapi({ description: 'Booking lines in the file (a batch counts once per transaction)' }),
        createdAt: z.string(),
      })
      .openapi({ description: 'The import; the earlier one when the same file was imported before' }),
    added: z.number().int().openapi({ description: 'Lines stored by this request (0 for a file imported before; lines of overlapping statements count once)' }),
    booked: z.number().int().openapi({ description: "Of the import's lines: STATUS_BOOKED" }),
    manualMatchingRequired: z.number().int(),
    ignored: z.number().int(),
    suggestions: z.number().int().openapi({ description: "Suggested assignments waiting on the import's lines" }),
  })
  .openapi('BankStatementImport');
export type BankImportResultResource = z.infer<typeof BankImportResultSchema>;

export const AcceptSuggestionsResultSchema = z
  .object({
    accepted: z.number().int().openapi({ description: 'Suggestions turned into payments' }),
    dropped: z.number().int().openapi({ description: 'Suggestions removed because their invoice no longer owed that amount' }),
    data: z.array(BankAccountTransactionSchema).openapi({ description: 'The bank account transactions touched' }),
  })
  .openapi('AcceptSuggestionsResult');
