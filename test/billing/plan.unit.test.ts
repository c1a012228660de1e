import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/billing/money';
import { planInstantUsage, planSubscription, usageKey, type PendingChange, type PlanInput, type PlanItem, type PlanPrice, type PlanSubscription } from '../../src/billing/plan';

// The pure planner, from preloaded input. Expectations are worked out by hand (comments), or taken
// from Kill Bill's published in-advance proration tests (killbill/killbill,
// invoice/src/test/java/org/killbill/billing/invoice/proRations/inAdvance/monthly/
// TestLeadingProRation.java and TestTrailingProRation.java): the number of billing cycles a monthly
// in-advance plan bills between a start date and a target date, with a billing cycle day (BCD) and
// an optional end date. Times are UTC midnight so days count as calendar days.

const day = (d: string) => `${d}T00:00:00.000Z`;

function price(over: Partial<PlanPrice> = {}): PlanPrice {
  return {
    id: 'p-monthly',
    type: 'recurring',
    pricing: { calculationType: 'per_unit', unitPrice: '1' },
    currencyCode: 'EUR',
    billingInterval: '1M',
    payInAdvance: true,
    proRata: true,
    ...over,
  };
}

function item(over: Partial<PlanItem> = {}): PlanItem {
  return {
    id: 'i1',
    productId: 'prod1',
    pricePlanId: 'p-monthly',
    type: 'item',
    status: 'active',
    quantity: '1',
    name: 'Seats',
    billingStart: null,
    startDate: null,
    endDate: null,
    lastBilledTo: null,
    lastBilledAt: null,
    ...over,
  };
}

function subscription(over: Partial<PlanSubscription> = {}): PlanSubscription {
  return {
    id: 's1',
    status: 'active',
    billingAnchor: day('2011-02-01'),
    pausedAt: null,
    billingResumeAt: null,
    cancellationDate: null,
    trialEndsOn: null,
    activatedAt: day('2011-02-01'),
    timeZone: 'UTC',
    billingGroup: null,
    items: [item()],
    ...over,
  };
}

function plan(input: Partial<Omit<PlanInput, 'asOf'>> & { asOf: string }) {
  const prices = input.prices ?? new Map([['p-monthly', price()]]);
  return planSubscription({ subscription: subscription(), changes: [], usage: new Map(), ...input, prices, asOf: new Date(input.asOf) });
}

/** Billing cycles planned: a full period counts 1, a prorated one usedDays/periodDays (exact). */
function cycles(lines: ReturnType<typeof plan>['lines']): string {
  return lines.reduce((sum, l) => sum.plus(l.factor ? new Dec(l.factor.usedDays).div(l.factor.periodDays) : 1), new Dec(0)).toString();
}
const frac = (n: number, d: number, whole = 0) => new Dec(n).div(d).plus(whole).toString();

describe('Kill Bill vectors: leading proration (start 2011-02-01, BCD 13, monthly in advance)', () => {
  // The BCD is our billing group's custom day: activation on 1 Feb, anchor moved to 13 Feb; the
  // stretch 1–13 Feb is 12 of the 31 days of the period 13 Jan–13 Feb.
  const bcd13 = (end: string | null) =>
    subscription({ billingAnchor: day('2011-02-13'), billingGroup: { dayOfMonth: 13 }, items: [item({ endDate: end && day(end) })] });
  it.each([
    ['evergreen, target on the start date', null, '2011-02-01', frac(12, 31)],
    ['evergreen, target inside the prorated period', null, '2011-02-04', frac(12, 31)],
    ['evergreen, target on the first billing date', null, '2011-02-13', frac(12, 31, 1)],
    ['evergreen, target after the first billing period', null, '2011-04-13', frac(12, 31, 3)],
    ['end 2011-04-13, target on the start date', '2011-04-13', '2011-02-01', frac(12, 31)],
    ['end 2011-04-13, target inside the prorated period', '2011-04-13', '2011-02-04', frac(12, 31)],
    ['end 2011-04-13, target on the first billing date', '2011-04-13', '2011-02-13', frac(12, 31, 1)],
    ['end 2011-04-13, target inside the final period', '2011-04-13', '2011-04-10', frac(12, 31, 2)],
    ['end 2011-04-13, target on the end date', '2011-04-13', '2011-04-13', frac(12, 31, 2)],
  ])('%s', (_name, end, target, expected) => {
    const { lines, usageNeeded } = plan({ subscription: bcd13(end), asOf: day(target) });
    expect(cycles(lines)).toBe(expected);
    expect(usageNeeded).toEqual([]);
    expect(lines[0]).toMatchObject({ periodStart: new Date(day('2011-02-01')), periodEnd: new Date(day('2011-02-13')), factor: { usedDays: 12, periodDays: 31 } });
  });
});

describe('Kill Bill vectors: trailing proration (start 2010-06-17, BCD 17, end 2010-07-25, monthly in advance)', () => {
  const ending = subscription({ billingAnchor: day('2010-06-17'), activatedAt: day('2010-06-17'), items: [item({ endDate: day('2010-07-25') })] });
  it.each([
    ['target on the start date', '2010-06-17', '1'],
    ['target inside the first period', '2010-06-20', '1'],
    ['target at the end of the first period', '2010-07-17', frac(8, 31, 1)], // 17–25 Jul: 8 of the 31 days to 17 Aug
    ['target inside the prorated period', '2010-07-18', frac(8, 31, 1)],
    ['target on the end date', '2010-07-25', frac(8, 31, 1)],
    ['target after the end date', '2010-07-30', frac(8, 31, 1)],
  ])('%s', (_name, target, expected) => {
    expect(cycles(plan({ subscription: ending, asOf: day(target) }).lines)).toBe(expected);
  });
});

describe('planSubscription', () => {
  it('plans nothing for a draft, a terminated subscription or one without anchor', () => {
    for (const s of [subscription({ status: 'draft' }), subscription({ status: 'terminated' }), subscription({ billingAnchor: null })]) {
      expect(plan({ subscription: s, asOf: day('2011-06-01') })).toEqual({ lines: [], usageNeeded: [] });
    }
  });

  it('bills in advance at the period start and in arrears at its end, and never a billed period again', () => {
    const prices = new Map([
      ['adv', price({ id: 'adv', pricing: { calculationType: 'flat_fee', flatPrice: '30' } })],
      ['arr', price({ id: 'arr', payInAdvance: false, pricing: { calculationType: 'per_unit', unitPrice: '2.5' } })],
    ]);
    const s = subscription({ items: [item({ id: 'a', pricePlanId: 'adv' }), item({ id: 'b', pricePlanId: 'arr', quantity: '4' })] });
    // 1 Feb: the first period in advance (30); the arrears item is due on 1 Mar.
    expect(plan({ subscription: s, prices, asOf: day('2011-02-01') }).lines.map((l) => [l.itemId, l.amount, l.periodStart.toISOString()])).toEqual([['a', '30', day('2011-02-01')]]);
    // 1 Mar: February in arrears (4 × 2.5 = 10) and March in advance.
    const march = plan({ subscription: s, prices, asOf: day('2011-03-01') }).lines.map((l) => [l.itemId, l.amount, l.periodStart.toISOString()]);
    expect(march).toEqual([
      ['a', '30', day('2011-02-01')],
      ['a', '30', day('2011-03-01')],
      ['b', '10', day('2011-02-01')],
    ]);
    // Billed up to 1 Apr (a) and 1 Mar (b): on 1 Mar nothing is left.
    const billed = subscription({ items: [item({ id: 'a', pricePlanId: 'adv', lastBilledTo: day('2011-04-01') }), item({ id: 'b', pricePlanId: 'arr', quantity: '4', lastBilledTo: day('2011-03-01') })] });
    expect(plan({ subscription: billed, prices, asOf: day('2011-03-01') }).lines).toEqual([]);
  });

  it('asks for the usage of each due period, then prices what it is given', () => {
    const prices = new Map([['m', price({ id: 'm', type: 'metered', payInAdvance: false, pricing: { calculationType: 'per_unit', unitPrice: '0.0125' } })]]);
    const s = subscription({ items: [item({ pricePlanId: 'm' })] });
    const first = plan({ subscription: s, prices, asOf: day('2011-04-01') });
    const windows = [
      { itemId: 'i1', productId: 'prod1', start: new Date(day('2011-02-01')), end: new Date(day('2011-03-01')) },
      { itemId: 'i1', productId: 'prod1', start: new Date(day('2011-03-01')), end: new Date(day('2011-04-01')) },
    ];
    expect(first.usageNeeded).toEqual(windows);
    const usage = new Map([
      [usageKey(windows[0]!), '1800.5'], // × 0.0125 = 22.50625
      [usageKey(windows[1]!), '0'],
    ]);
    const second = plan({ subscription: s, prices, usage, asOf: day('2011-04-01') });
    expect(second.usageNeeded).toEqual([]);
    expect(second.lines.map((l) => [l.kind, l.quantity, l.amount])).toEqual([
      ['usage', '1800.5', '22.50625'],
      ['usage', '0', '0'],
    ]);
  });

  it('records the periods a resume skipped as skipped (nothing to pay), then bills on', () => {
    const s = subscription({ billingResumeAt: day('2011-04-01'), items: [item({ lastBilledTo: day('2011-02-01') })] });
    const lines = plan({ subscription: s, asOf: day('2011-04-01') }).lines;
    expect(lines.map((l) => [l.kind, l.ledgerKind, l.periodStart.toISOString(), l.amount, l.advancesBilling])).toEqual([
      ['skipped', 'recurring', day('2011-02-01'), '0', true],
      ['skipped', 'recurring', day('2011-03-01'), '0', true],
      ['recurring', 'recurring', day('2011-04-01'), '1', true],
    ]);
  });

  it('bills nothing from the pause on, and a one-time charge once', () => {
    const prices = new Map([
      ['p-monthly', price()],
      ['setup', price({ id: 'setup', type: 'one_time', billingInterval: null, pricing: { calculationType: 'flat_fee', flatPrice: '99' } })],
    ]);
    const paused = subscription({ status: 'paused', pausedAt: day('2011-03-15'), items: [item({ lastBilledTo: day('2011-03-01') }), item({ id: 'c', type: 'charge', pricePlanId: 'setup' })] });
    // March started before the pause: billed; April starts after it: not. The setup fee: at the anchor.
    expect(plan({ subscription: paused, prices, asOf: day('2011-05-01') }).lines.map((l) => [l.kind, l.periodStart.toISOString(), l.amount])).toEqual([
      ['recurring', day('2011-03-01'), '1'],
      ['charge', day('2011-02-01'), '99'],
    ]);
    const charged = subscription({ items: [item({ id: 'c', type: 'charge', pricePlanId: 'setup', lastBilledAt: day('2011-02-01') })] });
    expect(plan({ subscription: charged, prices, asOf: day('2011-05-01') }).lines).toEqual([]);
  });

  it('credits the rest of a period billed in advance at the old price and charges it at the new', () => {
    // 3 seats at 10 billed for March; on 11 March (21 of 31 days left) 5 seats.
    const prices = new Map([['p-monthly', price({ pricing: { calculationType: 'per_unit', unitPrice: '10' } })]]);
    const change: PendingChange = { id: 'ch1', subscriptionItemId: 'i1', effectiveAt: day('2011-03-11'), fromQuantity: '3', toQuantity: '5', fromPricePlanId: 'p-monthly', toPricePlanId: 'p-monthly' };
    const s = subscription({ items: [item({ quantity: '5', lastBilledTo: day('2011-04-01') })] });
    const lines = plan({ subscription: s, prices, changes: [change], asOf: day('2011-03-11') }).lines;
    expect(lines.map((l) => [l.ledgerKind, l.quantity, l.amount, l.factor?.usedDays, l.factor?.periodDays, l.advancesBilling, l.changeIds])).toEqual([
      ['credit:ch1', '3', '-30', 21, 31, false, ['ch1']], // −30 × 21/31 on the invoice
      ['charge:ch1', '5', '50', 21, 31, false, ['ch1']], // 50 × 21/31
    ]);
  });

  it('prices a percentage plan at its share of the other lines of its period', () => {
    // 100 flat + 2 × 25 per unit = 150 in February; the 10 % fee: 15. A prorated base counts prorated.
    const prices = new Map([
      ['flat', price({ id: 'flat', pricing: { calculationType: 'flat_fee', flatPrice: '100' } })],
      ['seat', price({ id: 'seat', pricing: { calculationType: 'per_unit', unitPrice: '25' } })],
      ['fee', price({ id: 'fee', pricing: { calculationType: 'percentage', percentage: '10' } })],
    ]);
    const items = [item({ id: 'f', pricePlanId: 'flat' }), item({ id: 's', pricePlanId: 'seat', quantity: '2' }), item({ id: 'x', pricePlanId: 'fee' })];
    const lines = plan({ subscription: subscription({ items }), prices, asOf: day('2011-02-01') }).lines;
    expect(lines.map((l) => [l.itemId, l.amount, l.factor])).toEqual([
      ['f', '100', null],
      ['s', '50', null],
      ['x', '15', null],
    ]);
    // Cancelled on 15 Feb (14 of 28 days): base (100 + 50) × 14/28 = 75, the fee 7.5 and not prorated again.
    const cancelled = subscription({ status: 'cancelled', cancellationDate: day('2011-02-15'), items });
    const partial = plan({ subscription: cancelled, prices, asOf: day('2011-02-01') }).lines;
    expect(partial.map((l) => [l.itemId, l.amount, l.factor && `${l.factor.usedDays}/${l.factor.periodDays}`])).toEqual([
      ['f', '100', '14/28'],
      ['s', '50', '14/28'],
      ['x', '7.5', null],
    ]);
    // Cancelled on 23 Feb (22 of 28 days): base 150 × 22/28 = 117.857142857142… ; the fee 11.7857142857 (10 decimals, half-up).
    const late = subscription({ status: 'cancelled', cancellationDate: day('2011-02-23'), items });
    expect(plan({ subscription: late, prices, asOf: day('2011-02-01') }).lines.find((l) => l.itemId === 'x')!.amount).toBe('11.7857142857');
  });

  it('splits a period billed in arrears at each change', () => {
    // 2 seats at 10 in arrears; from 15 Feb (14 of 28 days) 4 seats: 2 × 10 × 14/28 + 4 × 10 × 14/28.
    const prices = new Map([['p-monthly', price({ payInAdvance: false, pricing: { calculationType: 'per_unit', unitPrice: '10' } })]]);
    const change: PendingChange = { id: 'ch2', subscriptionItemId: 'i1', effectiveAt: day('2011-02-15'), fromQuantity: '2', toQuantity: '4', fromPricePlanId: 'p-monthly', toPricePlanId: 'p-monthly' };
    const s = subscription({ items: [item({ quantity: '4' })] });
    const lines = plan({ subscription: s, prices, changes: [change], asOf: day('2011-03-01') }).lines;
    expect(lines.map((l) => [l.quantity, l.amount, `${l.factor?.usedDays}/${l.factor?.periodDays}`, l.changeIds])).toEqual([
      ['2', '20', '14/28', ['ch2']],
      ['4', '40', '14/28', ['ch2']],
    ]);
  });
});

describe('planInstantUsage', () => {
  it('bills one push on its own, keyed by the event', () => {
    const p = price({ id: 'inst', type: 'instant_metered', billingInterval: null, pricing: { calculationType: 'per_unit', unitPrice: '0.5' } });
    const [line, ...rest] = planInstantUsage(item({ pricePlanId: 'inst' }), p, { eventId: 'e-7', quantity: '3', measuredAt: '2011-02-03T12:00:00.000Z' });
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ kind: 'usage', ledgerKind: 'instant:e-7', amount: '1.5', advancesBilling: false, periodStart: new Date('2011-02-03T12:00:00.000Z') });
  });
});
