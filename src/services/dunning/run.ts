import { and, asc, eq, sql } from 'drizzle-orm';
import { nextDunningStep, type DunningStep } from '../../billing/dunning';
import { nextUpdatedAt } from '../../db/commit';
import { inJson } from '../../db/client';
import { dunningDocuments, invoices, subscriptions, tenants } from '../../db/schema';
import type { DocumentLanguage } from '../../documents/model';
import { EVENT_VERSION } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import { logError } from '../../lib/log';
import type { DunningRunSummary } from '../../objects/tenant-object-api';
import type { ServiceContext } from '../context';
import { suspendCustomer } from '../customers/update';
import { loadDocumentSettings } from '../documents/settings';
import { aggregatesOf, creditedQuery, renderLoaded } from '../invoices/read';
import { owedSql } from '../invoices/owed';
import { openSql } from '../invoices/status';
import type { InvoiceAggregate } from '../invoices/render';
import { loadSettings } from '../platform/settings';
import { pauseSubscription } from '../subscriptions/lifecycle';
import { deliverIssued, deliverPendingDunning, INLINE_DELIVERIES } from './delivery';
import { renderDunningDocument, type DunningDocumentRow } from './documents';
import { rulesInForce } from './rules';
import { DUNNING_LINE_NAMES, dunningTexts, fillPlaceholders, placeholderValues } from './texts';

// The dunning run (docs/decisions.md, Dunning): every overdue, unpaid invoice whose dunning is not
// disabled and whose money is not on its way moves up at most one level. It runs in the tenant's
// TenantObject (one run at a time); the document's number, the document and the invoice's change
// are one batch there, guarded by the invoice's updatedAt, and UNIQUE (invoice, level) holds
// whatever else runs.

const BATCH = 100;

type Rules = Awaited<ReturnType<typeof rulesInForce>>;

interface RunInput {
  rules: Rules;
  formats: { reminder: string; dunning: string };
  seller: string;
}

/** Open invoices the run looks at, by due date; money on its way or a planned retry holds dunning back. */
function candidates(ctx: ServiceContext, after: { dueDate: string; id: string } | null, invoiceId: string | undefined, lastLevel: number) {
  const t = ctx.tenant.id;
  return ctx.db
    .select()
    .from(invoices)
    .where(
      and(
        eq(invoices.tenantId, t),
        openSql('invoices'),
        eq(invoices.type, 'TYPE_INVOICE'),
        eq(invoices.dunningDisabled, false),
        // Money still owed (credit notes take their part off), and a level still to come.
        sql`${owedSql(t, 'invoices')} > 0`,
        sql`${invoices.dunningLevel} < ${lastLevel}`,
        sql`${invoices.dueDate} < ${ctx.now.toISOString()}`,
        invoiceId ? eq(invoices.id, invoiceId) : undefined,
        after ? sql`(${invoices.dueDate}, ${invoices.id}) > (${after.dueDate}, ${after.id})` : undefined,
        sql`NOT EXISTS (SELECT 1 FROM transactions x WHERE x.tenant_id = ${t} AND x.invoice_id = ${invoices.id} AND x.type = 'payment'
          AND (x.status IN ('pending', 'processing') OR x.status = 'failed' AND x.next_retry_at IS NOT NULL))`,
      ),
    )
    .orderBy(asc(invoices.dueDate), asc(invoices.id))
    .limit(BATCH);
}

/** Runs dunning for the context's tenant at its now; `invoiceId` limits it to one invoice. */
export async function runDunningFor(ctx: ServiceContext, options: { invoiceId?: string } = {}): Promise<DunningRunSummary> {
  const summary = { issued: 0, examined: 0 };
  const settings = await loadSettings(ctx.db, ctx.tenant.id);
  if (!settings['dunning.enabled']) return summary;
  const [rules, documentSettings, tenant] = await Promise.all([
    rulesInForce(ctx),
    loadDocumentSettings(ctx.db, ctx.tenant.id),
    ctx.db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.tenant.id)).get(),
  ]);
  const input: RunInput = {
    rules,
    formats: { reminder: String(settings['reminder.numberFormat']), dunning: String(settings['dunningLetter.numberFormat']) },
    seller: documentSettings.seller.name ?? tenant?.name ?? '',
  };
  const issued: string[] = [];
  for (let after: { dueDate: string; id: string } | null = null; ; ) {
    const rows = await candidates(ctx, after, options.invoiceId, Math.max(...rules.map((r) => r.level)));
    if (rows.length === 0) break;
    summary.examined += rows.length;
    const last = rows[rows.length - 1]!;
    after = { dueDate: last.dueDate!, id: last.id };
    const ids = rows.map((r) => r.id);
    // The plan needs only the history and the credit notes; the whole invoice (lines, customer,
    // files) is read for the invoices that move up a level, not for every one overdue.
    const [history, credited] = await ctx.db.batch([
      ctx.db.select().from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), inJson(dunningDocuments.invoiceId, ids))),
      creditedQuery(ctx, ids),
    ]);
    const creditedOf = new Map(credited.map((c) => [c.invoiceId, c.amount]));
    const historyOf = new Map<string, typeof history>();
    for (const d of history) historyOf.set(d.invoiceId, [...(historyOf.get(d.invoiceId) ?? []), d]);
    const steps = rows.flatMap((row) => {
      const step = nextDunningStep(
        rules,
        { invoiceDueDate: row.dueDate!, currencyCode: row.currencyCode, grossAmount: row.grossAmount, paidAmount: row.paidAmount, creditedAmount: creditedOf.get(row.id) ?? 0, documents: historyOf.get(row.id) ?? [] },
        ctx.now,
      );
      return step ? [{ row, step }] : [];
    });
    const aggregates = steps.length ? await aggregatesOf(ctx, steps.map((s) => s.row)) : new Map<string, InvoiceAggregate>();
    for (const { row, step } of steps) {
      const agg = aggregates.get(row.id)!;
      try {
        const documentId = await issue(ctx, agg, step, input);
        if (!documentId) continue;
        issued.push(documentId);
        if (step.last) await finalAction(ctx, agg, step);
      } catch (err) {
        logError({ job: 'dunning', tenantId: ctx.tenant.id, invoiceId: row.id }, err);
      }
    }
    if (rows.length < BATCH) break;
  }
  summary.issued = issued.length;
  // What earlier runs left unsent first (oldest first), then this run's documents; beyond a few,
  // the documents queue renders and mails them.
  const earlier = await deliverPendingDunning(ctx, INLINE_DELIVERIES, issued);
  await deliverIssued(ctx, issued, INLINE_DELIVERIES - earlier);
  return summary;
}

/** The document of one step, issued through the TenantObject's numbering; its id, or null when refused. */
async function issue(ctx: ServiceContext, agg: InvoiceAggregate, step: DunningStep<Rules[number]>, input: RunInput): Promise<string | null> {
  const { row, customer } = agg;
  const now = ctx.now.toISOString();
  const language: DocumentLanguage = customer.language === 'en' ? 'en' : 'de';
  const tz = customer.timeZone;
  const invoiceNumber = row.number ?? '';
  const values = placeholderValues({ language, timeZone: tz, currencyCode: row.currencyCode, invoiceNumber, invoiceDate: row.finalizationDate ?? row.createdAt, dueDate: step.dueDate, amountDue: step.amountDue, level: step.level, seller: input.seller });
  const names = DUNNING_LINE_NAMES[language];
  const credited = (agg.credited ?? 0) > 0;
  const positions = step.lines.map((l) => ({ ...l, name: l.type === 'invoice' ? names.invoice(invoiceNumber, values.invoiceDate!, credited) : names.fee(l.level!) }));
  const texts = dunningTexts(step.rule.texts, step.rule.type, language);
  const address = (row.invoiceAddress ?? {}) as Record<string, string | null | undefined>;
  const person = [address.firstName ?? customer.firstName, address.lastName ?? customer.lastName].filter(Boolean).join(' ');
  const companyName = address.companyName ?? customer.companyName ?? null;
  const document: DunningDocumentRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    customerId: row.customerId,
    invoiceId: row.id,
    ruleId: step.rule.id,
    level: step.level,
    type: step.rule.type,
    status: 'open',
    reason: null,
    number: '{number}',
    numberSeq: 0,
    language,
    recipient: {
      name: companyName ?? (person || customer.email),
      email: customer.email,
      companyName,
      street: [address.street, address.houseNumber].filter(Boolean).join(' ') || null,
      zip: address.zip ?? null,
      city: address.city ?? null,
      countryCode: address.countryCode ?? customer.countryCode,
    },
    title: fillPlaceholders(texts.title, values),
    introduction: fillPlaceholders(texts.introduction, values),
    closing: fillPlaceholders(texts.closing, values),
    documentDate: step.documentDate,
    dueDate: step.dueDate,
    currencyCode: row.currencyCode,
    feeAmount: step.feeAmount,
    openAmount: step.openAmount,
    amountDue: step.amountDue,
    positions,
    attachInvoice: step.rule.attachInvoice,
    emailTemplate: step.rule.emailTemplate,
    documentTemplate: step.rule.documentTemplate,
    fileId: null,
    sentAt: null,
    deliveryAttempts: 0,
    createdAt: now,
    updatedAt: now,
  };
  const invoiceSet = { dunningLevel: step.level, dunningStatus: step.rule.type, lastReminderDate: now, status: 'STATUS_REMINDED', updatedAt: nextUpdatedAt(ctx.now, row.updatedAt) };
  const invoiceAfter = renderLoaded({ ...agg, row: { ...row, ...invoiceSet } });
  const event = (type: 'dunning_document.created' | 'invoice.updated' | 'invoice.remindered', resourceId: string, data: unknown) => ({ id: newId(), type, version: EVENT_VERSION, resourceId, data: data as Record<string, unknown>, createdAt: now });
  const { numberSeq: _seq, number: _number, tenantId: _tenant, ...stored } = document;
  const result = await ctx.numbering.issueDunning({
    tenantId: ctx.tenant.id,
    invoiceId: row.id,
    expectedUpdatedAt: row.updatedAt,
    type: step.rule.type,
    format: step.rule.type === 'reminder' ? input.formats.reminder : input.formats.dunning,
    timeZone: tz,
    customerNumber: customer.customerNumber,
    date: now,
    document: { ...stored, tenantId: ctx.tenant.id },
    invoiceSet,
    events: [
      event('dunning_document.created', document.id, renderDunningDocument(document, row.number)),
      event('invoice.updated', row.id, invoiceAfter),
      event('invoice.remindered', row.id, invoiceAfter),
    ],
  });
  return result.ok ? document.id : null;
}

/** The last level's action besides its document: suspend the customer, or pause its active subscriptions. */
async function finalAction(ctx: ServiceContext, agg: InvoiceAggregate, step: DunningStep<Rules[number]>) {
  if (step.rule.finalAction === 'suspend_customer') await suspendCustomer(ctx, agg.row.customerId);
  if (step.rule.finalAction === 'pause_subscriptions') {
    const live = await ctx.db
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.customerId, agg.row.customerId), eq(subscriptions.status, 'active')));
    for (const s of live) await pauseSubscription(ctx, s.id);
  }
}
