// Builders of the invoice tests (test/invoices/*.test.ts), all through the API.
import { expect } from 'vitest';
import { api, type TestTenant } from '../support/api';

/** A draft invoice (201). */
export async function draft(t: TestTenant, customerId: string, positions: unknown[], extra: Record<string, unknown> = {}) {
  const res = await api('/invoices', { token: t.key, body: { customer: customerId, positions, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A finalized invoice: a draft, finalized (201). */
export async function finalized(t: TestTenant, customerId: string, positions: unknown[], extra: Record<string, unknown> = {}) {
  const d = await draft(t, customerId, positions, extra);
  const f = await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  return f.body;
}

/** A line in our spelling: `quantity` × `unitPrice` at `taxRate` % (category S). */
export const line = (unitPrice: string, quantity = '1', taxRate = '19') => ({ name: 'Service', unitPrice, quantity, taxRate });

/** A POST with a body sent exactly as written (JSON numbers as the client wrote them). */
export const postRaw = (t: TestTenant, path: string, rawBody: string, method = 'POST') =>
  api(path, { token: t.key, method, rawBody, contentType: 'application/json' });
