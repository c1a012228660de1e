import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import { inJson } from '../../db/client';
import { settled, type ShardSweep } from '../../db/directory';
import type { Env } from '../../env';
import { systemNow } from '../../lib/clock';
import { openTenantContext } from '../context';
import { requestRendering } from '../documents/jobs';
import { currencyScale, formatDecimal, fromMinorUnits } from '../../billing/money';
import { localDay } from '../../billing/periods';
import { customerEmailAddresses, customers, dunningDocuments, dunningRules, invoices, media, paymentMethods, tenants } from '../../db/schema';
import { pdfAssets } from '../../documents/assets';
import type { DocumentLanguage, DocumentModel } from '../../documents/model';
import { renderPdf } from '../../documents/pdf/render';
import { logError } from '../../lib/log';
import type { ServiceContext } from '../context';
import { safeFileName, storeFile } from '../documents/media';
import { loadLogo } from '../documents/inputs';
import { paymentInstructions, sellerParty } from '../documents/model';
import { ensureRendered } from '../documents/render';
import { loadDocumentSettings } from '../documents/settings';
import { payingMethodWhere } from '../payments/paying-method';
import { loadSettings } from '../platform/settings';
import type { DunningDocumentRow } from './documents';
import { dunningTexts, fillPlaceholders, placeholderValues } from './texts';

// A dunning document's PDF (rendered once, stored in R2 like an invoice's) and its mail through the
// mail interface, with the invoice's PDF attached when the rule says so (docs/decisions.md, Dunning).

/**
 * Documents a run renders and mails itself (a PDF each, perhaps the invoice's too): enough for a
 * test clock's scenario, few enough for one Durable Object call. The rest go to the documents queue.
 */
export const INLINE_DELIVERIES = 10;

/** Failed renders or mails of a document before the sweeper leaves it alone (it is logged each time). */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** A document waits this long for its queued delivery before the sweeper queues it again. */
const REQUEUE_AFTER_MS = 15 * 60_000;

/** The document model of a dunning document: the open invoice and the fees as lines, no VAT (fees are damages, not supplies). */
export async function dunningDocumentModel(ctx: ServiceContext, doc: DunningDocumentRow): Promise<DocumentModel> {
  const t = ctx.tenant.id;
  const [tenantRows, invoiceRows, customerRows, methods] = await ctx.db.batch([
    ctx.db.select({ name: tenants.name, countryCode: tenants.countryCode }).from(tenants).where(eq(tenants.id, t)),
    ctx.db.select().from(invoices).where(and(eq(invoices.tenantId, t), eq(invoices.id, doc.invoiceId))),
    ctx.db.select().from(customers).where(and(eq(customers.tenantId, t), eq(customers.id, doc.customerId))),
    ctx.db.select().from(paymentMethods).where(payingMethodWhere(t, { paymentMethodId: null, customerId: doc.customerId })),
  ]);
  const invoice = invoiceRows[0]!;
  const customer = customerRows[0]!;
  const settings = await loadDocumentSettings(ctx.db, t);
  const creditorId = (await loadSettings(ctx.db, t))['sepa.creditorId'];
  const language: DocumentLanguage = doc.language === 'en' ? 'en' : 'de';
  const currency = doc.currencyCode;
  const scale = currencyScale(currency);
  const amount = (minor: number) => formatDecimal(fromMinorUnits(minor, currency), scale);
  const day = (iso: string) => localDay(new Date(iso), customer.timeZone);
  const recipient = doc.recipient as Record<string, string | null>;
  const gross = doc.positions.reduce((sum, p) => sum + p.amount, 0);
  const method = methods[0] ? { type: methods[0].type, mandateReference: methods[0].mandateReference, iban: methods[0].iban, creditorId: creditorId ?? null } : null;
  const dueDate = day(doc.dueDate);
  return {
    kind: doc.type,
    typeCode: '380',
    number: doc.number,
    preview: false,
    language,
    currency,
    issueDate: day(doc.documentDate),
    dueDate,
    title: doc.title,
    introduction: doc.introduction,
    closing: doc.closing,
    buyerReference: customer.customerNumber,
    orderReference: null,
    contractReference: null,
    precedingInvoice: invoice.number ? { number: invoice.number, issueDate: invoice.finalizationDate ? day(invoice.finalizationDate) : null } : null,
    servicePeriod: null,
    seller: sellerParty(settings, tenantRows[0]!),
    logo: await loadLogo(ctx, settings),
    buyer: {
      name: recipient.name ?? customer.email,
      contactName: recipient.companyName ? [customer.firstName, customer.lastName].filter(Boolean).join(' ') || null : null,
      address: { line1: recipient.street ?? null, line2: null, postcode: recipient.zip ?? null, city: recipient.city ?? null, countryCode: recipient.countryCode ?? customer.countryCode },
      vatId: customer.vatId,
      email: customer.email,
      customerNumber: customer.customerNumber,
    },
    groups: [],
    lines: doc.positions.map((p, i) => ({
      id: `${doc.id}-${i + 1}`,
      number: i + 1,
      groupId: null,
      name: p.name,
      description: null,
      quantity: '1',
      unitCode: 'C62',
      unitName: null,
      unitPrice: amount(p.amount),
      grossNet: amount(p.amount),
      allowance: null,
      net: amount(p.amount),
      vatCategory: 'O',
      vatRate: '0',
      period: null,
      sellerItemId: null,
    })),
    vat: [],
    totals: { lineNet: amount(gross), discount: amount(0), net: amount(gross), tax: amount(0), gross: amount(gross), paid: amount(gross - doc.amountDue), due: amount(doc.amountDue) },
    payment: paymentInstructions(settings, method, language, invoice.number, dueDate),
    legalNotes: [],
    exchangeRates: [],
    notes: [],
  };
}

/**
 * Renders, stores and mails one document, once: the mail is claimed by setting `sentAt` first (a
 * failed send gives the claim back for the next run). A failure is logged and left to the next run.
 */
export async function deliverDunningDocument(ctx: ServiceContext, documentId: string): Promise<boolean> {
  const t = ctx.tenant.id;
  try {
    let doc = await ctx.db.select().from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, documentId))).get();
    // Paid, cancelled or withdrawn meanwhile: nobody is reminded of money no longer asked for.
    if (!doc || doc.sentAt || doc.status !== 'open') return false;
    if (!doc.fileId) {
      const pdf = await renderPdf(await dunningDocumentModel(ctx, doc), pdfAssets);
      const file = await storeFile(ctx, {
        ownerType: 'dunning_document',
        ownerId: doc.id,
        purpose: 'pdf',
        key: `${t}/dunning/${doc.id}/${doc.number}.pdf`,
        bytes: pdf,
        mimeType: 'application/pdf',
        fileExtension: 'pdf',
        fileName: safeFileName(`${doc.number}.pdf`),
      });
      // The file belongs to the document, not to a change of it: updatedAt stays.
      const [stored] = await ctx.db.batch([
        ctx.db.update(dunningDocuments).set({ fileId: file.id }).where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, doc.id), isNull(dunningDocuments.fileId))).returning(),
        ctx.db.insert(media).values(file).onConflictDoNothing(),
      ]);
      doc = stored[0] ?? (await ctx.db.select().from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, doc.id))).get())!;
    }
    const claimed = await ctx.db
      .update(dunningDocuments)
      .set({ sentAt: ctx.now.toISOString() })
      .where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, doc.id), isNull(dunningDocuments.sentAt), eq(dunningDocuments.status, 'open')))
      .returning({ id: dunningDocuments.id });
    if (claimed.length === 0) return false;
    try {
      await ctx.mailer.send(await dunningMail(ctx, doc));
    } catch (err) {
      await ctx.db.update(dunningDocuments).set({ sentAt: null }).where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, doc.id)));
      throw err;
    }
    return true;
  } catch (err) {
    logError({ job: 'dunning-delivery', tenantId: t, documentId }, err);
    await ctx.db
      .update(dunningDocuments)
      .set({ deliveryAttempts: sql`${dunningDocuments.deliveryAttempts} + 1` })
      .where(and(eq(dunningDocuments.tenantId, t), eq(dunningDocuments.id, documentId)));
    return false;
  }
}

/** The documents queue's dunning job: one document rendered and mailed for its tenant. */
export async function deliveryJob(env: Env, job: { tenantId: string; dunningDocumentId: string }): Promise<boolean> {
  const ctx = await openTenantContext(env, job.tenantId);
  return ctx ? deliverDunningDocument(ctx, job.dunningDocumentId) : false;
}

/**
 * Delivers the first `inline` of these documents now and queues the rest (without a background
 * queue they wait for the next run, which delivers what is pending first).
 */
export async function deliverIssued(ctx: ServiceContext, documentIds: readonly string[], inline: number): Promise<void> {
  for (const id of documentIds.slice(0, inline)) await deliverDunningDocument(ctx, id);
  await requestRendering(
    ctx.env,
    documentIds.slice(inline).map((dunningDocumentId) => ({ tenantId: ctx.tenant.id, dunningDocumentId })),
  );
}

/** The cron's sweep: open documents on a shard still unsent a while after they were made, queued again. */
export async function sweepUndeliveredDunning(env: Env, sweep: ShardSweep, limit = 200): Promise<number> {
  const due = await sweep.db
    .select({ tenantId: dunningDocuments.tenantId, dunningDocumentId: dunningDocuments.id })
    .from(dunningDocuments)
    .where(
      and(
        settled(sweep, dunningDocuments.tenantId),
        isNull(dunningDocuments.sentAt),
        eq(dunningDocuments.status, 'open'),
        lt(dunningDocuments.deliveryAttempts, MAX_DELIVERY_ATTEMPTS),
        lt(dunningDocuments.createdAt, new Date(systemNow().getTime() - REQUEUE_AFTER_MS).toISOString()),
      ),
    )
    .orderBy(asc(dunningDocuments.createdAt))
    .limit(limit);
  await requestRendering(env, due);
  return due.length;
}

/** The mail of a document: to the customer's invoice address (else its default), the PDF attached, and the invoice's when the rule says so. */
async function dunningMail(ctx: ServiceContext, doc: DunningDocumentRow) {
  const t = ctx.tenant.id;
  const [emails, files, invoiceRows, customerRows, rules, tenantRows] = await ctx.db.batch([
    ctx.db.select().from(customerEmailAddresses).where(and(eq(customerEmailAddresses.tenantId, t), eq(customerEmailAddresses.customerId, doc.customerId), eq(customerEmailAddresses.isDefault, true))),
    ctx.db.select().from(media).where(and(eq(media.tenantId, t), eq(media.id, doc.fileId ?? ''))),
    ctx.db.select({ number: invoices.number, finalizationDate: invoices.finalizationDate, createdAt: invoices.createdAt }).from(invoices).where(and(eq(invoices.tenantId, t), eq(invoices.id, doc.invoiceId))),
    ctx.db.select({ timeZone: customers.timeZone }).from(customers).where(and(eq(customers.tenantId, t), eq(customers.id, doc.customerId))),
    ctx.db.select({ texts: dunningRules.texts }).from(dunningRules).where(and(eq(dunningRules.tenantId, t), eq(dunningRules.id, doc.ruleId ?? ''))),
    ctx.db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, t)),
  ]);
  const recipient = doc.recipient as Record<string, string | null>;
  const to = emails.find((e) => e.type === 'invoice')?.email ?? emails.find((e) => e.type === 'default')?.email ?? recipient.email ?? '';
  const attachments = files.map((m) => ({ key: m.storageFileName, fileName: m.fileName, mimeType: m.mimeType }));
  if (doc.attachInvoice) {
    const invoiceFiles = await ensureRendered(ctx, doc.invoiceId);
    attachments.push({ key: invoiceFiles.file.storageFileName, fileName: invoiceFiles.file.fileName, mimeType: invoiceFiles.file.mimeType });
  }
  const language: DocumentLanguage = doc.language === 'en' ? 'en' : 'de';
  const texts = dunningTexts(rules[0]?.texts ?? null, doc.type, language);
  const invoice = invoiceRows[0];
  const seller = (await loadDocumentSettings(ctx.db, t)).seller.name ?? tenantRows[0]?.name ?? '';
  const values = placeholderValues({
    language,
    timeZone: customerRows[0]?.timeZone ?? 'Europe/Berlin',
    currencyCode: doc.currencyCode,
    invoiceNumber: invoice?.number ?? null,
    invoiceDate: invoice?.finalizationDate ?? invoice?.createdAt ?? doc.documentDate,
    dueDate: doc.dueDate,
    amountDue: doc.amountDue,
    level: doc.level,
    seller,
    number: doc.number,
  });
  return { tenantId: t, to, subject: fillPlaceholders(texts.emailSubject, values), body: fillPlaceholders(texts.emailBody, values), attachments };
}

/** The tenant's open documents not yet mailed (a render or send failed, or their job is still queued), oldest first, a few per run. */
export async function deliverPendingDunning(ctx: ServiceContext, limit: number, except: readonly string[] = []): Promise<number> {
  if (limit <= 0) return 0;
  const pending = await ctx.db
    .select({ id: dunningDocuments.id })
    .from(dunningDocuments)
    .where(
      and(
        eq(dunningDocuments.tenantId, ctx.tenant.id),
        eq(dunningDocuments.status, 'open'),
        isNull(dunningDocuments.sentAt),
        lt(dunningDocuments.deliveryAttempts, MAX_DELIVERY_ATTEMPTS),
        except.length ? sql`NOT (${inJson(dunningDocuments.id, [...except])})` : undefined,
      ),
    )
    .orderBy(asc(dunningDocuments.createdAt))
    .limit(limit);
  for (const p of pending) await deliverDunningDocument(ctx, p.id);
  // What the run's own documents have left of its inline budget.
  return pending.length;
}
