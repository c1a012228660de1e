// What a SEPA file says, as the services will hand it over: plain strings, no clock, no I/O. Amounts
// are decimal strings in euros (SEPA is EUR only); dates are calendar dates (YYYY-MM-DD) and the
// creation time is a Date the caller took from its clock, so the same model is the same file.

export type SequenceType = 'FRST' | 'RCUR' | 'OOFF' | 'FNAL';
export const SEQUENCE_TYPES: readonly SequenceType[] = ['FRST', 'RCUR', 'OOFF', 'FNAL'];

export type Pain008Version = 'pain.008.001.02' | 'pain.008.001.08';
export type Pain001Version = 'pain.001.001.03' | 'pain.001.001.09';

/** An account holder: the name is cleaned to the SEPA character set, the BIC may be left out (IBAN-only, since 2016). */
export interface SepaAccountHolder {
  name: string;
  iban: string;
  bic?: string;
}

/** The tenant collecting the money, with its creditor identifier (e.g. DE98ZZZ09999999999). */
export interface SepaCreditor extends SepaAccountHolder {
  creditorId: string;
}

export interface SepaDirectDebit {
  endToEndId: string;
  /** Euros, at most 2 decimals, 0.01 to 999999999.99. */
  amount: string;
  mandateId: string;
  /** YYYY-MM-DD. */
  mandateSignedOn: string;
  debtor: SepaAccountHolder;
  remittance?: string;
}

/** One PmtInf: the debits collected on one date with one sequence type. */
export interface SepaDirectDebitGroup {
  /** YYYY-MM-DD. */
  collectionDate: string;
  sequenceType: SequenceType;
  debits: SepaDirectDebit[];
}

export interface SepaDirectDebitFile {
  messageId: string;
  createdAt: Date;
  creditor: SepaCreditor;
  groups: SepaDirectDebitGroup[];
}

export interface SepaCreditTransfer {
  endToEndId: string;
  /** Euros, at most 2 decimals, 0.01 to 999999999.99. */
  amount: string;
  creditor: SepaAccountHolder;
  remittance?: string;
}

/** One PmtInf: the transfers executed on one date. */
export interface SepaCreditTransferGroup {
  /** YYYY-MM-DD. */
  executionDate: string;
  transfers: SepaCreditTransfer[];
}

/** Refunds and credit notes paid out by the tenant (the debtor of a credit transfer). */
export interface SepaCreditTransferFile {
  messageId: string;
  createdAt: Date;
  payer: SepaAccountHolder;
  groups: SepaCreditTransferGroup[];
}

/** One broken rule; `rule` doubles as the 422 violation code. */
export interface SepaViolation {
  path: string;
  rule: string;
  message: string;
}

/** Thrown by the writers with every broken rule of the input at once. */
export class SepaInputError extends Error {
  constructor(readonly violations: readonly SepaViolation[]) {
    super(`The SEPA file cannot be written:\n${violations.map((v) => `- ${v.path}: ${v.rule}: ${v.message}`).join('\n')}`);
    this.name = 'SepaInputError';
  }
}
