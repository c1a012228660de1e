import { invoices } from '../../db/schema';
import { tenantRowsById } from '../../db/client';
import type { ServiceContext } from '../context';
import { paymentMethodRows, renderEmbedded } from '../payments/methods-embed';
import { renderPaymentMethod, type PaymentMethodRow } from '../payments/methods-render';
import { renderReference, type InvoiceEmbeds, type InvoiceRow } from './render';

// What invoices embed (docs/decisions.md, Response shapes): payment methods and referenced
// documents of a whole page are read by two statements that go into the page's own batch, so a
// page of 100 invoices costs the same number of queries as one.

const ids = (values: (string | null)[]) => [...new Set(values.filter((x): x is string => x !== null))];

/** The two statements that read what these invoices embed; add them to the caller's `db.batch`. */
export function embedStatements(ctx: ServiceContext, rows: readonly InvoiceRow[]) {
  return [
    paymentMethodRows(ctx, rows.map((r) => r.paymentMethodId)),
    ctx.db.select().from(invoices).where(tenantRowsById(invoices, ctx.tenant.id, ids(rows.map((r) => r.referencedInvoiceId)))),
  ] as const;
}

/** The embeds from the rows `embedStatements` read. */
export async function embedsFrom(ctx: ServiceContext, methods: readonly PaymentMethodRow[], referenced: readonly InvoiceRow[]): Promise<InvoiceEmbeds> {
  return {
    paymentMethods: await renderEmbedded(ctx, methods),
    invoices: new Map(referenced.map((r) => [r.id, renderReference(r)])),
    baseUrl: ctx.publicBaseUrl,
  };
}

/** The embeds of these invoices, read on their own (one batch). */
export async function invoiceEmbeds(ctx: ServiceContext, rows: readonly InvoiceRow[]): Promise<InvoiceEmbeds> {
  if (!rows.some((r) => r.paymentMethodId || r.referencedInvoiceId)) return embedsFrom(ctx, [], []);
  const [methods, referenced] = await ctx.db.batch(embedStatements(ctx, rows));
  return embedsFrom(ctx, methods, referenced);
}

/**
 * The embeds of an invoice billing composes: its method is the subscription's (already read with
 * it), it refers to no other document. No query, so a billing run reads nothing more per invoice.
 */
export function composedEmbeds(ctx: ServiceContext, paymentMethodId: string | null, method: PaymentMethodRow | null, creditorId: string | null): InvoiceEmbeds {
  return {
    paymentMethods: new Map(paymentMethodId && method?.id === paymentMethodId ? [[method.id, renderPaymentMethod(method, creditorId)]] : []),
    invoices: new Map(),
    baseUrl: ctx.publicBaseUrl,
  };
}

/** Whether a change moves what the invoice embeds, so its embeds must be read again. */
export function movesEmbeds(before: InvoiceRow, changes: Partial<InvoiceRow>): boolean {
  return (
    (changes.paymentMethodId !== undefined && changes.paymentMethodId !== before.paymentMethodId) ||
    (changes.referencedInvoiceId !== undefined && changes.referencedInvoiceId !== before.referencedInvoiceId)
  );
}
