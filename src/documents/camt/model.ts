// What a camt bank statement says, as the import hands it on: plain strings, no clock, no I/O.
// Amounts are exact decimal strings with the currency's scale ("-53.00"), signed from the account
// holder's side: credits (money in) positive, debits negative. Dates are calendar dates (YYYY-MM-DD)
// as the bank wrote them.

/** camt.052 (intraday account report), camt.053 (statement), camt.054 (debit/credit notification). */
export type CamtMessage = 'camt.052' | 'camt.053' | 'camt.054';

/** One broken rule of an input file: where (an XML path such as `Stmt[0].Ntry[2].Amt`), which rule, why. */
export interface CamtViolation {
  path: string;
  rule: string;
  message: string;
}

/** A file that is not a camt message we can book; names every broken rule at once. */
export class CamtInputError extends Error {
  constructor(readonly violations: readonly CamtViolation[]) {
    super(`The bank statement cannot be imported:\n${violations.map((v) => `- ${v.path}: ${v.rule}: ${v.message}`).join('\n')}`);
    this.name = 'CamtInputError';
  }
}

export interface CamtAmount {
  /** Non-negative as written in the file, normalized to the currency's scale ("105.750" EUR → "105.75"). */
  amount: string;
  currency: string;
}

export interface BankTransactionCode {
  /** ISO domain, family and sub-family (PMNT / RCDT / ESCT). */
  domain: string | null;
  family: string | null;
  subFamily: string | null;
  /** The bank's own code and its issuer (German banks: the DK's GVC such as `NDDT+105+9200+992`, issuer `DK`). */
  proprietary: string | null;
  issuer: string | null;
}

export interface CamtParty {
  name: string | null;
  /** The account as an IBAN, when it is one. */
  iban: string | null;
  /** The account's identification: the IBAN or the bank's other id. */
  account: string | null;
}

export interface StructuredRemittance {
  /** Creditor reference (`CdtrRefInf/Ref`, e.g. an RF reference or ISR number). */
  reference: string | null;
  additionalInfo: string | null;
}

export interface ReturnInfo {
  /** ISO return reason (AM04, MD06, MS03…) or the bank's proprietary reason. */
  reason: string | null;
  additionalInfo: string | null;
}

/** One `TxDtls` of an entry. */
export interface CamtTransactionDetails {
  path: string;
  /** Its own amount (`TxDtls/Amt`, else `AmtDtls/TxAmt`), signed; null when it has none. */
  amount: string | null;
  currency: string | null;
  /** What the originator instructed (`AmtDtls/InstdAmt`), unsigned. */
  instructedAmount: CamtAmount | null;
  accountServicerReference: string | null;
  /** Null when absent or `NOTPROVIDED`. */
  endToEndId: string | null;
  mandateId: string | null;
  /** The SEPA creditor identifier of a direct debit (`Cdtr/Id/PrvtId/Othr/Id`). */
  creditorId: string | null;
  debtor: CamtParty | null;
  creditor: CamtParty | null;
  ultimateDebtor: CamtParty | null;
  ultimateCreditor: CamtParty | null;
  unstructured: string[];
  structured: StructuredRemittance[];
  returnInfo: ReturnInfo | null;
  /** Charges of the transaction (`TtlChrgsAndTaxAmt`, else the sum of the charge amounts). */
  charges: CamtAmount | null;
  bankTransactionCode: BankTransactionCode | null;
}

/** One `Ntry`: a booking on the account. */
export interface CamtEntry {
  path: string;
  /** Signed: CRDT positive, DBIT negative. */
  amount: string;
  currency: string;
  creditDebit: 'CRDT' | 'DBIT';
  /** BOOK, PDNG, INFO (or a later version's other code). */
  status: string;
  bookingDate: string | null;
  valueDate: string | null;
  /** Null when absent or `NONREF`. */
  accountServicerReference: string | null;
  reversal: boolean;
  bankTransactionCode: BankTransactionCode | null;
  charges: CamtAmount | null;
  additionalInfo: string | null;
  details: CamtTransactionDetails[];
}

/** One `Stmt` (camt.053), `Rpt` (camt.052) or `Ntfctn` (camt.054). */
export interface CamtStatement {
  path: string;
  id: string | null;
  accountIban: string | null;
  /** The IBAN, or the bank's other account id. */
  accountId: string | null;
  currency: string | null;
  entries: CamtEntry[];
}

export interface CamtDocument {
  /** The message version, e.g. `camt.053.001.02`. */
  format: string;
  message: CamtMessage;
  messageId: string | null;
  createdAt: string | null;
  statements: CamtStatement[];
}

/**
 * A booking line as the import stores and matches it: one per entry, or one per `TxDtls` of a
 * batch entry (the credit of a SEPA direct-debit batch, each collection with its own amount). The
 * open-banking pull builds the same items from its provider's data.
 */
export interface BankItem {
  /** Where it came from, for messages (`Stmt[0].Ntry[3].TxDtls[1]`, or the provider's id). */
  source: string;
  statementId: string | null;
  /** The tenant's own account. */
  accountIban: string | null;
  /** Signed decimal string: credits positive, debits negative. */
  amount: string;
  currency: string;
  bookingDate: string | null;
  valueDate: string | null;
  status: string;
  accountServicerReference: string | null;
  /** Which `TxDtls` of a batch entry the item is; null for an entry taken whole. */
  detailIndex: number | null;
  endToEndId: string | null;
  mandateId: string | null;
  creditorId: string | null;
  /** The other side: the payer of a credit, the payee of a debit, the debtor of a returned debit. */
  counterpartyName: string | null;
  counterpartyIban: string | null;
  /** The ultimate party behind the counterparty, when the file names one. */
  ultimateCounterpartyName: string | null;
  /** The unstructured remittance lines, joined with a space. */
  remittance: string | null;
  /** The structured creditor references, in order. */
  structuredReferences: string[];
  returnInfo: ReturnInfo | null;
  /** The bank's charges on the item (the fee of a returned debit), unsigned. */
  charges: string | null;
  bankTransactionCode: BankTransactionCode | null;
  reversal: boolean;
}
