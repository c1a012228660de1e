import { describe, expect, it } from 'vitest';
import { DEFAULT_DUNNING_RULES, nextDunningStep, type DunningHistory, type DunningRuleInput } from '../../src/billing/dunning';

// The dunning planner: which document the next run makes. Days are counted from the invoice's due
// date for level 1 and from the previous document's due date after that.

const rule = (level: number, type: 'reminder' | 'dunning', daysOverdue: number, feeAmount = 0, feeCurrencyCode = 'EUR'): DunningRuleInput => ({
  id: `r${level}`, level, type, daysOverdue, dueInDays: 7, feeAmount, feeCurrencyCode, attachInvoice: false, finalAction: 'none',
});
const RULES = [rule(1, 'reminder', 7), rule(2, 'dunning', 7, 500), rule(3, 'dunning', 7, 1000)];
const due = '2026-03-16T09:00:00.000Z';
const at = (days: number) => new Date(Date.parse(due) + days * 86_400_000);
const history = (over: Partial<DunningHistory> = {}): DunningHistory => ({ invoiceDueDate: due, currencyCode: 'EUR', grossAmount: 10000, paidAmount: 0, creditedAmount: 0, documents: [], ...over });
const doc = (level: number, dueDays: number, feeAmount = 0, status: 'open' | 'paid' | 'cancelled' = 'open') => ({ level, dueDate: at(dueDays).toISOString(), feeAmount, status });

describe('nextDunningStep', () => {
  const cases: { name: string; rules?: DunningRuleInput[]; h: DunningHistory; now: Date; expected: null | { level: number; feeAmount: number; amountDue: number; dueDate: string; fees?: number[] } }[] = [
    { name: 'not yet 7 days overdue', h: history(), now: at(6.99), expected: null },
    { name: 'reminder exactly 7 days after the due date', h: history(), now: at(7), expected: { level: 1, feeAmount: 0, amountDue: 10000, dueDate: at(14).toISOString() } },
    { name: 'level 2 counts from the reminder’s due date', h: history({ documents: [doc(1, 14)] }), now: at(20.9), expected: null },
    { name: 'level 2 with its fee', h: history({ documents: [doc(1, 14)] }), now: at(21), expected: { level: 2, feeAmount: 500, amountDue: 10500, dueDate: at(28).toISOString(), fees: [500] } },
    {
      name: 'level 3 after a partial payment: open amount plus both fees (Fynn: 100 − 30 + 5 = 75 at level 2)',
      h: history({ paidAmount: 3000, documents: [doc(1, 14), doc(2, 28, 500)] }),
      now: at(35),
      expected: { level: 3, feeAmount: 1000, amountDue: 8500, dueDate: at(42).toISOString(), fees: [500, 1000] },
    },
    { name: 'a cancelled document’s fee is not asked for again', h: history({ documents: [doc(1, 14), doc(2, 28, 500, 'cancelled')] }), now: at(35), expected: { level: 3, feeAmount: 1000, amountDue: 11000, dueDate: at(42).toISOString(), fees: [1000] } },
    { name: 'one level per run after a long pause', h: history(), now: at(400), expected: { level: 1, feeAmount: 0, amountDue: 10000, dueDate: at(407).toISOString() } },
    { name: 'nothing after the last level', h: history({ documents: [doc(1, 14), doc(2, 28, 500), doc(3, 42, 1000)] }), now: at(400), expected: null },
    { name: 'nothing when paid', h: history({ paidAmount: 10000 }), now: at(30), expected: null },
    { name: 'nothing when a credit note took off what was not paid', h: history({ paidAmount: 6000, creditedAmount: 4000 }), now: at(30), expected: null },
    { name: 'a credit note lowers what is asked for', h: history({ paidAmount: 1000, creditedAmount: 4000 }), now: at(7), expected: { level: 1, feeAmount: 0, amountDue: 5000, dueDate: at(14).toISOString() } },
    { name: 'a fee in another currency is not charged', rules: [rule(1, 'dunning', 0, 500, 'USD')], h: history(), now: at(1), expected: { level: 1, feeAmount: 0, amountDue: 10000, dueDate: at(8).toISOString() } },
    { name: 'a gap in the levels: the next rule above the highest level made', rules: [rule(1, 'reminder', 7), rule(3, 'dunning', 7, 200)], h: history({ documents: [doc(1, 14)] }), now: at(21), expected: { level: 3, feeAmount: 200, amountDue: 10200, dueDate: at(28).toISOString(), fees: [200] } },
  ];
  it.each(cases)('$name', ({ rules, h, now, expected }) => {
    const step = nextDunningStep(rules ?? RULES, h, now);
    if (expected === null) return expect(step).toBeNull();
    expect(step).toMatchObject({ level: expected.level, feeAmount: expected.feeAmount, amountDue: expected.amountDue, dueDate: expected.dueDate, documentDate: now.toISOString() });
    expect(step!.lines.filter((l) => l.type === 'dunning_fee').map((l) => l.amount)).toEqual(expected.fees ?? []);
    expect(step!.lines[0]).toEqual({ type: 'invoice', amount: h.grossAmount - h.creditedAmount });
  });

  it('the default set: reminder 7 days after the due date, letters 14 and 28 days after the previous due date, the last one last', () => {
    expect(DEFAULT_DUNNING_RULES.map((r) => [r.level, r.type, r.daysOverdue, r.dueInDays, r.feeAmount])).toEqual([
      [1, 'reminder', 7, 7, 0],
      [2, 'dunning', 14, 7, 0],
      [3, 'dunning', 28, 7, 0],
    ]);
    const third = nextDunningStep(DEFAULT_DUNNING_RULES, history({ documents: [doc(1, 14), doc(2, 35)] }), at(63));
    expect(third).toMatchObject({ level: 3, last: true });
    expect(nextDunningStep(DEFAULT_DUNNING_RULES, history(), at(7))).toMatchObject({ level: 1, last: false });
  });
});
