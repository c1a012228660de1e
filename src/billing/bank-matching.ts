// The matching planner for bank statement lines: which invoices a booking pays, which collection it
// settles or returns, and how sure we are. Pure, like the billing planner: it plans from preloaded
// input (open invoices, live collections, known payer IBANs) and the caller does the I/O. Amounts
// are integer minor units; a credit is positive, a debit negative.

export type MatchedBy = 'reference' | 'end_to_end' | 'mandate' | 'amount_iban' | 'manual';

export const BANK_STATUS = {
  received: 'STATUS_RECEIVED',
  booked: 'STATUS_BOOKED',
  manual: 'STATUS_MANUAL_MATCHING_REQUIRED',
  ignored: 'STATUS_IGNORED',
} as const;
export type BankStatus = (typeof BANK_STATUS)[keyof typeof BANK_STATUS];

export interface MatchItem {
  id: string;
  /** Signed minor units. */
  amount: number;
  /** What earlier matching already assigned of it (minor units, same sign). */
  assigned: number;
  currency: string;
  /** Remittance text to search for invoice numbers (unstructured lines and structured references). */
  text: string | null;
  endToEndId: string | null;
  mandateId: string | null;
  counterpartyIban: string | null;
  /** A debit the payer's bank sent back (return information, a reversal, an unpaid direct debit). */
  isReturn: boolean;
  returnReason: string | null;
  /** The bank's charge on a returned debit, minor units; null when the file names none. */
  returnFee: number | null;
}

export interface OpenInvoice {
  id: string;
  number: string | null;
  customerId: string;
  currency: string;
  /** Minor units still to pay (owedAmount: credit notes off). */
  unpaid: number;
  /** The dunning fees its open dunning documents ask for, minor units: a transfer may pay them on top. */
  fees?: number;
  /**
   * What a collection already sent may still pay of it (gross − paid; default `unpaid`): the bank
   * moved that money, so a credit note issued meanwhile owes the excess back instead.
   */
  collectable?: number;
  dueDate: string | null;
  /**
   * A payment of it is on its way (a card charge without its answer, a SEPA debit in a file): a
   * reference match is only suggested, since the collection would take the money a second time.
   */
  collecting?: boolean;
}

/** A collection (SEPA direct debit) whose money the statement may show arriving or coming back. */
export interface Collection {
  id: string;
  invoiceId: string | null;
  /** The end-to-end id it was sent with. */
  referenceId: string | null;
  mandateReference: string | null;
  amount: number;
  currency: string;
  status: 'processing' | 'succeeded';
  /** Whether its payment is on the invoice already (an invoice_payments row names it). */
  paidOnInvoice: boolean;
  /** The bank lines whose accepted assignment names it (the credit that settled or confirmed it). */
  assignedTo: string[];
  /** Of its refunds, what went back or is on its way back (succeeded, or in a credit-transfer file); minor units. */
  givenBack: number;
  /** What a collection may still pay of its invoice (gross − paid, 0 when the invoice is not open); minor units. */
  invoiceUnpaid: number;
}

export interface MatchInput {
  items: MatchItem[];
  invoices: OpenInvoice[];
  collections: Collection[];
  /** IBANs known to belong to a customer (its mandates, earlier matched payments). */
  payerIbans: { customerId: string; iban: string }[];
}

/**
 * An invoice the item pays. `collectionId` names the collection it settles: with `confirmed` the
 * collection's payment is already on the invoice and only the assignment is recorded.
 */
export interface PlannedAssignment {
  invoiceId: string;
  amount: number;
  matchedBy: MatchedBy;
  collectionId: string | null;
  confirmed: boolean;
  /** Set by a person's request, not by the planner: the suggestion it accepts (keeping its id), the bank's fee on it. */
  assignmentId?: string;
  fee?: number;
}

/** A collection the payer's bank sent back: `amount` leaves the invoice again (when it had paid it), `fee` is the bank's charge. */
export interface PlannedReturn {
  collectionId: string;
  invoiceId: string | null;
  amount: number;
  fee: number;
  reason: string | null;
  matchedBy: 'end_to_end' | 'mandate';
  /** The collection's payment is on the invoice and is taken off it. */
  unpay: boolean;
  /**
   * Left to a person: the collection is returned, but the invoice stays as it is and the line gets
   * no assignment. Its invoice was paid by other money while the debit was in the bank's hands, or
   * part of the collection was given back by a refund already, so reopening the invoice for the
   * collection's amount would be wrong in either direction.
   */
  review: boolean;
}

export interface ItemPlan {
  itemId: string;
  status: BankStatus;
  /** Booked at once (payments written). */
  certain: PlannedAssignment[];
  /** Proposed; a person accepts them (PUT …/accept-suggestions). */
  suggestions: PlannedAssignment[];
  returns: PlannedReturn[];
  /** What stays unassigned after the certain assignments and returns (minor units, signed like the item). */
  remainder: number;
}

/** An invoice number as compared with remittance text: letters and digits only, upper case ("RE-0000000001" → "RE0000000001"). */
export function normalizeReference(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** An IBAN as compared: upper case, no spaces. */
export const normalizeIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

/** Runs of letters and digits may be joined across these (a space, dash, dot, slash or underscore), not across commas. */
const JOINABLE = /^[\s\-_./]+$/;
const MAX_TOKENS_PER_NUMBER = 5;

/**
 * Candidates for invoice numbers in a text: every run of letters and digits, and runs joined across
 * spaces, dashes, dots and slashes, normalized. Whole runs only, so "RE-00000000012" does not
 * contain "RE-0000000001" (a word-boundary match that tolerates removed or added separators).
 */
export function referenceCandidates(text: string): Set<string> {
  const tokens: { value: string; start: number; end: number }[] = [];
  for (const m of text.toUpperCase().matchAll(/[A-Z0-9]+/g)) tokens.push({ value: m[0], start: m.index!, end: m.index! + m[0].length });
  const upper = text.toUpperCase();
  const out = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    let joined = '';
    for (let j = i; j < Math.min(tokens.length, i + MAX_TOKENS_PER_NUMBER); j++) {
      if (j > i && !JOINABLE.test(upper.slice(tokens[j - 1]!.end, tokens[j]!.start))) break;
      joined += tokens[j]!.value;
      out.add(joined);
    }
  }
  return out;
}

/** A number is only looked for when it could not be an ordinary word or amount: 3+ characters with a digit. */
const searchable = (normalized: string) => normalized.length >= 3 && /[0-9]/.test(normalized);

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Oldest due first, then by number: the order an amount is spread over several invoices. */
export function byDueDate(a: OpenInvoice, b: OpenInvoice): number {
  const da = a.dueDate ?? '9999';
  const db = b.dueDate ?? '9999';
  if (da !== db) return da < db ? -1 : 1;
  return (a.number ?? '').localeCompare(b.number ?? '');
}

/**
 * Spreads an amount over invoices in the given order: each is paid fully while the amount lasts,
 * the last one touched partly (an under-payment); what is left over is the remainder (an over-payment).
 */
export function spreadAmount(amount: number, invoices: readonly { id: string; unpaid: number }[]): { parts: { invoiceId: string; amount: number }[]; remainder: number } {
  let left = amount;
  const parts: { invoiceId: string; amount: number }[] = [];
  for (const inv of invoices) {
    if (left <= 0) break;
    const part = Math.min(left, inv.unpaid);
    if (part <= 0) continue;
    parts.push({ invoiceId: inv.id, amount: part });
    left -= part;
  }
  return { parts, remainder: left };
}

/**
 * Plans every item: (1) certain matches of credits, in order: the end-to-end id of a collection
 * (or its mandate, with the same amount), then invoice numbers in the text when the amount covers
 * them exactly; (2) returned debits against the collection they name; (3) suggestions for what is
 * left: the invoices named in the text (spread oldest due first), else the one open invoice with
 * exactly this amount of a customer paying from this IBAN. Currencies must agree, or nothing matches.
 */
export function planBankMatching(input: MatchInput): ItemPlan[] {
  const unpaid = new Map(input.invoices.map((i) => [i.id, i.unpaid]));
  const feesLeft = new Map(input.invoices.map((i) => [i.id, i.fees ?? 0]));
  const collectable = new Map(input.invoices.map((i) => [i.id, i.collectable ?? i.unpaid]));
  const invoiceById = new Map(input.invoices.map((i) => [i.id, i]));
  const byNumber = new Map<string, OpenInvoice[]>();
  for (const inv of input.invoices) {
    if (!inv.number) continue;
    const key = normalizeReference(inv.number);
    if (!searchable(key)) continue;
    push(byNumber, key, inv);
  }
  const byEndToEnd = new Map<string, Collection>();
  const byMandate = new Map<string, Collection[]>();
  for (const c of input.collections) {
    if (c.referenceId) byEndToEnd.set(c.referenceId, c);
    if (c.mandateReference) push(byMandate, c.mandateReference, c);
  }
  const customersByIban = new Map<string, Set<string>>();
  for (const p of input.payerIbans) {
    const key = normalizeIban(p.iban);
    customersByIban.set(key, (customersByIban.get(key) ?? new Set()).add(p.customerId));
  }
  const openByCustomer = new Map<string, OpenInvoice[]>();
  for (const inv of input.invoices) push(openByCustomer, inv.customerId, inv);
  // Collections as this plan leaves them: settled by a credit, or sent back by a return.
  const settled = new Set<string>();
  const returned = new Set<string>();
  const reserved = new Map<string, number>();
  const available = (id: string) => (unpaid.get(id) ?? 0) - (reserved.get(id) ?? 0);

  // `hold`: a credit naming a collection another line already accounts for, left to a person as it is.
  const plans = input.items.map((item): ItemPlan & { named: OpenInvoice[]; hold: boolean } => ({
    itemId: item.id,
    status: BANK_STATUS.manual,
    certain: [],
    suggestions: [],
    returns: [],
    remainder: item.amount - item.assigned,
    named: [],
    hold: false,
  }));

  // (1) Certain matches of credits.
  input.items.forEach((item, i) => {
    const plan = plans[i]!;
    if (plan.remainder <= 0) return;
    const collection = collectionOf(item, plan.remainder, byEndToEnd, byMandate, (c) => !returned.has(c.id));
    if (collection) {
      const { c, by } = collection;
      // The same collection credited twice (the file sent twice, collected twice): the second
      // credit is money nothing accounts for, never a second confirmation.
      if (settled.has(c.id) || c.assignedTo.some((line) => line !== item.id)) {
        plan.hold = true;
        return;
      }
      if (c.status === 'succeeded' && c.paidOnInvoice && c.invoiceId && !c.assignedTo.includes(item.id)) {
        plan.certain.push({ invoiceId: c.invoiceId, amount: c.amount, matchedBy: by, collectionId: c.id, confirmed: true });
        plan.remainder -= c.amount;
        settled.add(c.id);
        return;
      }
      if (c.status === 'processing' && c.invoiceId && (collectable.get(c.invoiceId) ?? 0) >= c.amount && invoiceById.get(c.invoiceId)!.currency === item.currency) {
        plan.certain.push({ invoiceId: c.invoiceId, amount: c.amount, matchedBy: by, collectionId: c.id, confirmed: false });
        unpaid.set(c.invoiceId, Math.max(0, unpaid.get(c.invoiceId)! - c.amount));
        collectable.set(c.invoiceId, collectable.get(c.invoiceId)! - c.amount);
        plan.remainder -= c.amount;
        settled.add(c.id);
        return;
      }
    }
    if (!item.text) return;
    const named = new Map<string, OpenInvoice>();
    for (const candidate of referenceCandidates(item.text)) {
      for (const inv of byNumber.get(candidate) ?? []) if (inv.currency === item.currency && (unpaid.get(inv.id) ?? 0) > 0) named.set(inv.id, inv);
    }
    plan.named = [...named.values()].sort(byDueDate);
    if (plan.named.length === 0) return;
    const total = plan.named.reduce((s, inv) => s + unpaid.get(inv.id)!, 0);
    // What the dunning letters asked for (open amounts and fees) pays the fees too.
    const fees = plan.named.reduce((s, inv) => s + (feesLeft.get(inv.id) ?? 0), 0);
    const withFees = fees > 0 && total + fees === plan.remainder;
    if (total !== plan.remainder && !withFees) return;
    // A debit or charge of one of them is on its way: paying it now would let that collect it again.
    if (plan.named.some((inv) => inv.collecting)) return;
    for (const inv of plan.named) {
      const fee = withFees ? (feesLeft.get(inv.id) ?? 0) : 0;
      plan.certain.push({ invoiceId: inv.id, amount: unpaid.get(inv.id)! + fee, matchedBy: 'reference', collectionId: null, confirmed: false });
      unpaid.set(inv.id, 0);
      feesLeft.set(inv.id, 0);
    }
    plan.remainder = 0;
    plan.named = [];
  });

  // (2) Returned debits.
  input.items.forEach((item, i) => {
    const plan = plans[i]!;
    if (item.amount >= 0 || !item.isReturn || plan.remainder === 0) return;
    const gross = -plan.remainder;
    const found = collectionOf(item, null, byEndToEnd, byMandate, (c) => !returned.has(c.id), gross, item.returnFee);
    if (!found || found.c.currency !== item.currency) return;
    const { c, by } = found;
    const fee = item.returnFee ?? Math.max(0, gross - c.amount);
    const paid = c.invoiceId !== null && ((c.status === 'succeeded' && c.paidOnInvoice) || settled.has(c.id));
    // A debit that never paid its invoice, whose invoice was paid by something else meanwhile: was
    // that the debit's own money (a batch credit assigned by hand)? Only a person can tell.
    const owes = c.invoiceId === null ? 0 : collectable.has(c.invoiceId) ? collectable.get(c.invoiceId)! : c.invoiceUnpaid;
    const review = c.givenBack > 0 || (!paid && c.invoiceId !== null && owes < c.amount);
    const unpay = paid && !review;
    plan.returns.push({ collectionId: c.id, invoiceId: c.invoiceId, amount: c.amount, fee, reason: item.returnReason, matchedBy: by === 'mandate' ? 'mandate' : 'end_to_end', unpay, review });
    returned.add(c.id);
    if (unpay && c.invoiceId && unpaid.has(c.invoiceId)) {
      unpaid.set(c.invoiceId, unpaid.get(c.invoiceId)! + c.amount);
      collectable.set(c.invoiceId, collectable.get(c.invoiceId)! + c.amount);
    }
    if (!review) plan.remainder = 0;
  });

  // (3) Suggestions for what credits have left.
  input.items.forEach((item, i) => {
    const plan = plans[i]!;
    if (item.amount <= 0 || plan.remainder <= 0 || plan.certain.length > 0 || plan.hold) return;
    if (plan.named.length > 0) {
      const { parts } = spreadAmount(
        plan.remainder,
        plan.named.map((inv) => ({ id: inv.id, unpaid: available(inv.id) })),
      );
      for (const p of parts) {
        plan.suggestions.push({ invoiceId: p.invoiceId, amount: p.amount, matchedBy: 'reference', collectionId: null, confirmed: false });
        reserved.set(p.invoiceId, (reserved.get(p.invoiceId) ?? 0) + p.amount);
      }
      return;
    }
    if (!item.counterpartyIban) return;
    const customers = customersByIban.get(normalizeIban(item.counterpartyIban));
    if (!customers) return;
    const exact = [...customers].flatMap((c) => openByCustomer.get(c) ?? []).filter((inv) => inv.currency === item.currency && available(inv.id) === plan.remainder);
    if (exact.length !== 1) return;
    plan.suggestions.push({ invoiceId: exact[0]!.id, amount: plan.remainder, matchedBy: 'amount_iban', collectionId: null, confirmed: false });
    reserved.set(exact[0]!.id, (reserved.get(exact[0]!.id) ?? 0) + plan.remainder);
  });

  return plans.map(({ named: _named, hold: _hold, ...plan }, i) => ({ ...plan, status: statusOf(input.items[i]!, plan) }));
}

/**
 * The collection an item names: by end-to-end id, else by mandate when exactly one live collection
 * of that mandate fits. For a credit the amount must be the collection's; for a return, the
 * booked amount may include the bank's fee, so the principal is compared when it can be told.
 */
function collectionOf(
  item: MatchItem,
  amount: number | null,
  byEndToEnd: Map<string, Collection>,
  byMandate: Map<string, Collection[]>,
  usable: (c: Collection) => boolean,
  returnedGross?: number,
  fee?: number | null,
): { c: Collection; by: 'end_to_end' | 'mandate' } | null {
  const fits = (c: Collection) => usable(c) && c.currency === item.currency && (amount === null || c.amount === amount);
  if (item.endToEndId) {
    const c = byEndToEnd.get(item.endToEndId);
    if (c && fits(c)) return { c, by: 'end_to_end' };
  }
  if (!item.mandateId) return null;
  const live = (byMandate.get(item.mandateId) ?? []).filter(fits);
  if (live.length === 1) return { c: live[0]!, by: 'mandate' };
  if (returnedGross === undefined) return null;
  const principal = fee != null ? returnedGross - fee : returnedGross;
  const same = live.filter((c) => c.amount === principal || c.amount === returnedGross);
  return same.length === 1 ? { c: same[0]!, by: 'mandate' } : null;
}

function statusOf(item: MatchItem, plan: Omit<ItemPlan, 'status'>): BankStatus {
  if (item.amount === 0) return BANK_STATUS.ignored;
  if (item.amount < 0) {
    if (plan.returns.length > 0) return plan.returns.some((r) => r.review) ? BANK_STATUS.manual : BANK_STATUS.booked;
    return item.isReturn ? BANK_STATUS.manual : BANK_STATUS.ignored;
  }
  return plan.remainder === 0 ? BANK_STATUS.booked : BANK_STATUS.manual;
}
