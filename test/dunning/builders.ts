// Builders of the dunning tests (test/dunning/*.test.ts), all through the API.
import { expect } from 'vitest';
import { api, post, put, type TestTenant } from '../support/api';
import { setClock } from '../support/builders';
import { finalized, line } from '../invoices/builders';

export const DAY_MS = 86_400_000;

/** Day `n` of a scenario that starts on 2026-03-02 09:00 UTC (a Monday), as an ISO instant. */
export const day = (n: number) => new Date(Date.parse('2026-03-02T09:00:00.000Z') + n * DAY_MS).toISOString();

/** The rules of the scenario: a reminder, then dunning letters with 5.00 and 10.00 EUR fees, each 7 days after the previous due date with 7 days to pay. */
export async function scenarioRules(t: TestTenant) {
  for (const rule of [
    { level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7 },
    { level: 2, type: 'dunning', daysOverdue: 7, dueInDays: 7, dunningFee: { amount: '5.00', currencyCode: 'EUR' } },
    { level: 3, type: 'dunning', daysOverdue: 7, dueInDays: 7, dunningFeeCents: 1000, attachInvoice: true },
  ]) {
    const res = await post(t, '/dunning/overdue-rules', rule);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}

/** A finalized invoice of 100.00 EUR gross (84.03 net + 15.97 VAT at 19 %) made on day `n`, due 14 days later. */
export async function hundredEuroInvoice(t: TestTenant, customerId: string) {
  return finalized(t, customerId, [line('84.03')]);
}

export async function moveTo(t: TestTenant, n: number) {
  await setClock(t, day(n));
}

export const documentsOf = async (t: TestTenant, invoiceId: string) => {
  const res = await api(`/dunning/documents?invoice=${invoiceId}&limit=100`, { token: t.key });
  expect(res.status).toBe(200);
  return (res.body.data as any[]).sort((a, b) => a.level - b.level);
};

export const pay = (t: TestTenant, invoiceId: string, amount: string) => post(t, `/invoices/${invoiceId}/payments`, { amount });

export const setDunningDisabled = (t: TestTenant, invoiceId: string, dunningDisabled: boolean) => put(t, `/invoices/${invoiceId}/dunning`, { dunningDisabled });
