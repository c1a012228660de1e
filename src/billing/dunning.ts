import { owedAmount } from './owed';
// The dunning planner: given a tenant's overdue rules, an open invoice's dunning history and the
// time, which document (if any) the next run makes. Pure: the caller loads the input and writes
// the result (docs/decisions.md, Dunning). Amounts are integer minor units of the invoice currency.

export type DunningType = 'reminder' | 'dunning';
export type DunningFinalAction = 'none' | 'suspend_customer' | 'pause_subscriptions';

export interface DunningRuleInput {
  /** Null for a rule of the default set (the tenant has no rules of its own). */
  id: string | null;
  level: number;
  type: DunningType;
  /** Days after the reference due date (the invoice's for level 1, the previous document's after that). */
  daysOverdue: number;
  /** Days the document gives to pay. */
  dueInDays: number;
  feeAmount: number;
  feeCurrencyCode: string;
  attachInvoice: boolean;
  finalAction: DunningFinalAction;
}

/**
 * The set a tenant without rules gets: a friendly reminder 7 days after the due date, a dunning
 * letter 14 days after the reminder's due date and a last one 28 days after that, each giving 7
 * days to pay, no fees (a tenant sets its own), no action after the last.
 */
export const DEFAULT_DUNNING_RULES: readonly DunningRuleInput[] = [
  { id: null, level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7, feeAmount: 0, feeCurrencyCode: 'EUR', attachInvoice: true, finalAction: 'none' },
  { id: null, level: 2, type: 'dunning', daysOverdue: 14, dueInDays: 7, feeAmount: 0, feeCurrencyCode: 'EUR', attachInvoice: true, finalAction: 'none' },
  { id: null, level: 3, type: 'dunning', daysOverdue: 28, dueInDays: 7, feeAmount: 0, feeCurrencyCode: 'EUR', attachInvoice: true, finalAction: 'none' },
];

export interface DunningHistory {
  /** The invoice's due date (ISO instant). */
  invoiceDueDate: string;
  currencyCode: string;
  grossAmount: number;
  paidAmount: number;
  /** What credit notes took off the invoice (positive): not owed. */
  creditedAmount: number;
  /** Documents made so far, every status (a cancelled level is not made again). */
  documents: readonly { level: number; dueDate: string; feeAmount: number; status: 'open' | 'paid' | 'cancelled' }[];
}

export interface DunningLine {
  type: 'invoice' | 'dunning_fee';
  /** Minor units; of the invoice: its gross less what credit notes took off. */
  amount: number;
  /** Of a fee: the level whose document charged it. */
  level?: number;
}

export interface DunningStep<R extends DunningRuleInput = DunningRuleInput> {
  rule: R;
  level: number;
  documentDate: string;
  dueDate: string;
  /** This document's fee. */
  feeAmount: number;
  /** What is unpaid of the invoice. */
  openAmount: number;
  /** The open amount and the fees of this and the earlier documents that were not cancelled. */
  amountDue: number;
  lines: DunningLine[];
  /** Whether this is the last level of the rules (its final action applies). */
  last: boolean;
}

const DAY_MS = 86_400_000;

/** `iso` plus whole days, as an ISO instant. */
export function plusDays(iso: string | Date, days: number): string {
  return new Date(new Date(iso).getTime() + days * DAY_MS).toISOString();
}

/** The fee a rule charges on an invoice of `currency`: its fee in its own currency, none in another. */
export function ruleFee(rule: DunningRuleInput, currency: string): number {
  return rule.type === 'dunning' && rule.feeCurrencyCode === currency ? rule.feeAmount : 0;
}

/**
 * The next document of an invoice at `now`, or null: the first rule above the highest level made
 * so far, once its days after the reference due date have passed. One level per call, so a run
 * after a long pause catches up one level at a time (each document gets its own days to pay).
 */
export function nextDunningStep<R extends DunningRuleInput>(rules: readonly R[], h: DunningHistory, now: Date): DunningStep<R> | null {
  const owed = h.grossAmount - h.creditedAmount;
  const open = owedAmount(h);
  if (open <= 0) return null;
  const sorted = [...rules].sort((a, b) => a.level - b.level);
  const latest = h.documents.reduce<DunningHistory['documents'][number] | null>((top, d) => (!top || d.level > top.level ? d : top), null);
  const reached = latest?.level ?? 0;
  const rule = sorted.find((r) => r.level > reached);
  if (!rule) return null;
  const reference = latest?.dueDate ?? h.invoiceDueDate;
  if (now.getTime() < new Date(plusDays(reference, rule.daysOverdue)).getTime()) return null;
  const feeAmount = ruleFee(rule, h.currencyCode);
  const earlierFees = h.documents
    .filter((d) => d.status !== 'cancelled' && d.feeAmount > 0)
    .sort((a, b) => a.level - b.level)
    .map((d): DunningLine => ({ type: 'dunning_fee', amount: d.feeAmount, level: d.level }));
  const lines: DunningLine[] = [{ type: 'invoice', amount: owed }, ...earlierFees, ...(feeAmount > 0 ? [{ type: 'dunning_fee' as const, amount: feeAmount, level: rule.level }] : [])];
  const fees = lines.filter((l) => l.type === 'dunning_fee').reduce((sum, l) => sum + l.amount, 0);
  return {
    rule,
    level: rule.level,
    documentDate: now.toISOString(),
    dueDate: plusDays(now, rule.dueInDays),
    feeAmount,
    openAmount: open,
    amountDue: open + fees,
    lines,
    last: rule === sorted[sorted.length - 1],
  };
}
