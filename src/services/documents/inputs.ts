import { and, eq, or } from 'drizzle-orm';
import { inJson, tenantRowsById } from '../../db/client';
import { invoices, media, paymentMethods, products, subscriptions, tenants } from '../../db/schema';
import type { DocumentModel } from '../../documents/model';
import type { ServiceContext } from '../context';
import type { InvoiceAggregate } from '../invoices/render';
import { loadSettings } from '../platform/settings';
import { payingMethodOf } from '../payments/paying-method';
import { loadDocumentSettings, type DocumentSettingsRow } from './settings';

// What a document model reads besides its invoice aggregate (src/services/documents/model.ts):
// the tenant's part once for any number of documents, the documents' own parts in one round trip
// for all of them (the render queue's consumer reads a chunk of documents at once).

/** What every document of a tenant reads besides its invoice: once for a batch of them. */
export interface TenantDocumentInputs {
  tenant: { name: string; countryCode: string };
  settings: DocumentSettingsRow;
  creditorId: string | null;
  logo: DocumentModel['logo'];
}

/** What one document reads besides its aggregate. */
export interface InvoiceDocumentInputs {
  original: { number: string | null; finalizationDate: string | null } | null;
  subscriptionNumber: string | null;
  paymentMethod: { type: string; mandateReference: string | null; iban: string | null } | null;
  /** The tenant's article numbers by product id: the item id a reader knows (BT-155); our product id is not. */
  productNumbers: ReadonlyMap<string, string>;
}

export async function loadTenantDocumentInputs(ctx: ServiceContext): Promise<TenantDocumentInputs> {
  const t = ctx.tenant.id;
  const [tenant, settings, creditorId] = await Promise.all([
    ctx.db.select({ name: tenants.name, countryCode: tenants.countryCode }).from(tenants).where(eq(tenants.id, t)).get(),
    loadDocumentSettings(ctx.db, t),
    loadSettings(ctx.db, t).then((v) => v['sepa.creditorId'] ?? null),
  ]);
  return { tenant: tenant!, settings, creditorId, logo: await loadLogo(ctx, settings) };
}

/** The per-document inputs of any number of documents, in one round trip. */
export async function loadInvoiceDocumentInputs(ctx: ServiceContext, aggs: readonly InvoiceAggregate[]): Promise<Map<InvoiceAggregate, InvoiceDocumentInputs>> {
  const t = ctx.tenant.id;
  const ids = (pick: (r: InvoiceAggregate['row']) => string | null) => [...new Set(aggs.map((a) => pick(a.row)).filter((id): id is string => !!id))];
  const productIds = [...new Set(aggs.flatMap((a) => a.positions.map((p) => p.productId)).filter((id): id is string => !!id))];
  const methodIds = ids((r) => r.paymentMethodId);
  const [originals, subs, methods, productRows] = await ctx.db.batch([
    ctx.db.select({ id: invoices.id, number: invoices.number, finalizationDate: invoices.finalizationDate }).from(invoices).where(tenantRowsById(invoices, t, ids((r) => r.referencedInvoiceId))),
    ctx.db.select({ id: subscriptions.id, number: subscriptions.number }).from(subscriptions).where(tenantRowsById(subscriptions, t, ids((r) => r.subscriptionId))),
    // Candidates for the method that pays each invoice (payingMethodOf picks it).
    ctx.db
      .select({ id: paymentMethods.id, customerId: paymentMethods.customerId, isDefault: paymentMethods.isDefault, type: paymentMethods.type, mandateReference: paymentMethods.mandateReference, iban: paymentMethods.iban })
      .from(paymentMethods)
      .where(and(eq(paymentMethods.tenantId, t), inJson(paymentMethods.customerId, [...new Set(aggs.map((a) => a.row.customerId))]), or(eq(paymentMethods.isDefault, true), inJson(paymentMethods.id, methodIds)))),
    ctx.db.select({ id: products.id, number: products.number }).from(products).where(tenantRowsById(products, t, productIds)),
  ]);
  const productNumbers = new Map(productRows.filter((p) => p.number).map((p) => [p.id, p.number!]));
  return new Map(
    aggs.map((agg) => {
      const method = payingMethodOf(agg.row, methods);
      return [
        agg,
        {
          original: originals.find((o) => o.id === agg.row.referencedInvoiceId) ?? null,
          subscriptionNumber: subs.find((x) => x.id === agg.row.subscriptionId)?.number ?? null,
          paymentMethod: method && { type: method.type, mandateReference: method.mandateReference, iban: method.iban },
          productNumbers,
        },
      ];
    }),
  );
}

/** The tenant's logo for a document, when it set one. */
export async function loadLogo(ctx: ServiceContext, settings: DocumentSettingsRow): Promise<DocumentModel['logo']> {
  if (!settings.logoMediaId) return null;
  const m = await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, settings.logoMediaId))).get();
  const object = m ? await ctx.env.DOCUMENTS.get(m.storageFileName) : null;
  return m && object ? { bytes: new Uint8Array(await object.arrayBuffer()), mimeType: m.mimeType === 'image/jpeg' ? 'image/jpeg' : 'image/png' } : null;
}

