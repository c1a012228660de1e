/**
 * What an invoice still asks for, in minor units: its gross less what was paid and what finalized
 * credit notes took off, never below 0 (docs/decisions.md, Invoices and billing, "What is owed").
 * Every path that asks how much is open (the API's `unpaidAmount`, payments, card charges, SEPA
 * debits, dunning, bank matching) goes through this rule or its SQL twin `owedSql`
 * (src/services/invoices/owed.ts).
 */
export function owedAmount(a: { grossAmount: number; paidAmount: number; creditedAmount: number }): number {
  return Math.max(0, a.grossAmount - a.paidAmount - a.creditedAmount);
}
