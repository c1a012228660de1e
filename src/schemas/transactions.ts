import { z } from '@hono/zod-openapi';

// Transactions (spec §2.5): payments, refunds and returned debits. Amounts are JSON numbers in
// major units, as the spec shows them (docs/decisions.md, Payments, "Transaction amounts").

const amount = (description: string) => z.number().openapi({ description, example: 119 });

export const TRANSACTION_TYPES = ['payment', 'refund', 'return'] as const;
export const TRANSACTION_STATUSES = ['pending', 'processing', 'action_required', 'succeeded', 'failed', 'returned'] as const;

export const TransactionSchema = z
  .object({
    id: z.string(),
    customer: z.object({ id: z.string() }),
    type: z.enum(TRANSACTION_TYPES),
    paymentMethod: z.object({ id: z.string() }).nullable(),
    gateway: z.string(),
    status: z.enum(TRANSACTION_STATUSES),
    description: z.string().nullable(),
    documentNumber: z.string().nullable().openapi({ description: 'The number of the invoice it pays or refunds' }),
    currencyCode: z.string(),
    amount: amount('What the transaction moves, in major units'),
    refundedAmount: amount('Of a payment: what was refunded of it so far'),
    chargedAmount: amount('What the gateway confirmed as charged'),
    feeAmount: amount("The gateway's or bank's fee (for a returned debit: the return charge)"),
    createdAt: z.string(),
    paidAt: z.string().nullable(),
    failReason: z.string().nullable(),
    authorized: z.boolean(),
    refundable: z.boolean(),
    processing: z.boolean(),
    captured: z.boolean(),
    invoice: z.object({ id: z.string(), number: z.string().nullable() }).nullable(),
    referenceId: z.string().nullable().openapi({ description: "The gateway's id of the charge or refund; for SEPA the end-to-end id" }),
    parentTransaction: z.object({ id: z.string() }).nullable().openapi({ description: 'Of a refund or return: the payment it belongs to' }),
    attempt: z.number().int().openapi({ description: 'Which collection attempt of the invoice this is' }),
    nextRetryAt: z.string().nullable().openapi({ description: 'Of a failed collection: when it is tried again' }),
    sepaFile: z.object({ id: z.string(), sequenceType: z.string().nullable(), collectionDate: z.string().nullable() }).nullable(),
    updatedAt: z.string(),
  })
  .openapi('Transaction');

export type TransactionResource = z.infer<typeof TransactionSchema>;
