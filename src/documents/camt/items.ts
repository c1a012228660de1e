import type { BankItem, CamtDocument, CamtEntry, CamtParty, CamtStatement, CamtTransactionDetails } from './model';

/**
 * The booking lines of a parsed message. An entry is one item, unless it is a batch whose
 * `TxDtls` each carry their own amount in the entry's currency (the credit of a SEPA direct-debit
 * batch): then each `TxDtls` is an item with its amount, so each collection can be matched on its
 * own. A batch whose details lack amounts stays one item of the entry's amount.
 */
export function camtBankItems(doc: CamtDocument): BankItem[] {
  return doc.statements.flatMap((s) => s.entries.flatMap((e) => entryItems(s, e)));
}

function entryItems(statement: CamtStatement, entry: CamtEntry): BankItem[] {
  const details = entry.details;
  const split = details.length >= 2 && details.every((d) => d.amount !== null && d.currency === entry.currency);
  if (split) return details.map((d, i) => item(statement, entry, d, d.amount!, i, d.path));
  const merged = details.length === 1 ? details[0]! : details.length > 1 ? mergeDetails(details) : null;
  return [item(statement, entry, merged, entry.amount, null, details.length === 1 ? details[0]!.path : entry.path)];
}

/** Several details without amounts: their texts together; a reference only when all agree. */
function mergeDetails(details: CamtTransactionDetails[]): CamtTransactionDetails {
  const first = details[0]!;
  const agreed = <K extends 'endToEndId' | 'mandateId' | 'creditorId'>(key: K) => (details.every((d) => d[key] === first[key]) ? first[key] : null);
  return {
    ...first,
    endToEndId: agreed('endToEndId'),
    mandateId: agreed('mandateId'),
    creditorId: agreed('creditorId'),
    unstructured: details.flatMap((d) => d.unstructured),
    structured: details.flatMap((d) => d.structured),
    charges: null,
  };
}

function item(statement: CamtStatement, entry: CamtEntry, d: CamtTransactionDetails | null, amount: string, index: number | null, source: string): BankItem {
  const debit = amount.startsWith('-') || (amount === entry.amount && entry.creditDebit === 'DBIT');
  const code = d?.bankTransactionCode ?? entry.bankTransactionCode;
  const returned = debit && (d?.returnInfo != null || entry.reversal || code?.subFamily === 'UPDD');
  // The other side: who paid a credit, who was paid by a debit; for a returned debit, the debtor whose bank sent it back.
  const [party, ultimate] = !debit || returned ? [d?.debtor, d?.ultimateDebtor] : [d?.creditor, d?.ultimateCreditor];
  const charges = d?.charges ?? (index === null ? entry.charges : null);
  return {
    source,
    statementId: statement.id,
    accountIban: statement.accountIban,
    amount,
    currency: entry.currency,
    bookingDate: entry.bookingDate,
    valueDate: entry.valueDate,
    status: entry.status,
    accountServicerReference: entry.accountServicerReference ?? d?.accountServicerReference ?? null,
    detailIndex: index,
    endToEndId: d?.endToEndId ?? null,
    mandateId: d?.mandateId ?? null,
    creditorId: d?.creditorId ?? null,
    counterpartyName: partyName(party) ?? partyName(ultimate),
    counterpartyIban: party?.iban ?? null,
    ultimateCounterpartyName: partyName(ultimate),
    remittance: d && d.unstructured.length > 0 ? d.unstructured.join(' ') : null,
    structuredReferences: (d?.structured ?? []).map((s) => s.reference).filter((r): r is string => r !== null),
    returnInfo: d?.returnInfo ?? null,
    charges: charges && charges.currency === entry.currency ? charges.amount : null,
    bankTransactionCode: code,
    reversal: entry.reversal,
  };
}

const partyName = (p: CamtParty | null | undefined) => p?.name ?? null;
