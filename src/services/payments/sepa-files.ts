import { and, asc, desc, eq } from 'drizzle-orm';
import { z } from '@hono/zod-openapi';
import { localDay } from '../../billing/periods';
import { nextTargetBusinessDay, targetClosure } from '../../billing/sepa-calendar';
import { inJson, isGuardFailure, isUniqueViolation, runBatch } from '../../db/client';
import { fetchPage } from '../../db/paging';
import { media, paymentMethods, sepaFiles, transactions } from '../../db/schema';
import { creditorIdProblem } from '../../documents/sepa';
import { ApiError, Violations } from '../../http/errors';
import { paginationQuery } from '../../http/pagination';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import {
  PAIN_001_FORMATS,
  PAIN_008_FORMATS,
  SEPA_FILE_TYPES,
  type SepaDownloadLink,
  type SepaFileCreatedResource,
  type SepaFileDetailResource,
  type SepaFileResource,
  type SepaFileType,
  type SepaFormat,
  type SepaSkipped,
} from '../../schemas/sepa';
import type { ServiceContext } from '../context';
import { signedUrl } from '../documents/links';
import { renderMedia, storeFile, type MediaRow } from '../documents/media';
import { loadDocumentSettings, maskIban } from '../documents/settings';
import { loadSettings } from '../platform/settings';
import { insertJsonRows } from '../../db/insert';
import { planDebits } from './sepa-debits';
import { SEPA_CURRENCY, sepaAmountText, type SepaFileFrame } from './sepa-plan';
import { planTransfers } from './sepa-transfers';

// SEPA files (docs/decisions.md, Payments, "SEPA files"): POST /sepa-xml gathers what is due, writes
// the pain.008 or pain.001 XML to R2 and records the file, its transactions and its Media row in one
// batch; the invoices stay open until the bank statement shows the money.

export type SepaFileRow = typeof sepaFiles.$inferSelect;

/**
 * Media rows know invoices and the tenant; a SEPA file is its own owner. The schema's owner enum
 * does not list it yet (the column is plain text in D1).
 */
const SEPA_FILE_OWNER = 'sepa_file' satisfies MediaRow['ownerType'];

export interface SepaFileInput {
  type: SepaFileType;
  collectionDate: string | null;
  format: SepaFormat | null;
}

const FORMATS: Record<SepaFileType, readonly SepaFormat[]> = { direct_debit: PAIN_008_FORMATS, credit_transfer: PAIN_001_FORMATS };

/**
 * Everything of the file that does not depend on what is due, checked together: the format fits
 * the type, the date is a TARGET business day no earlier than the next one after the tenant's
 * today, and the tenant's creditor identifier (debits) and bank account are set.
 */
async function fileBasics(ctx: ServiceContext, input: SepaFileInput): Promise<Omit<SepaFileFrame, 'fileId' | 'messageId'>> {
  const t = ctx.tenant.id;
  const [settings, documents] = await Promise.all([loadSettings(ctx.db, t), loadDocumentSettings(ctx.db, t)]);
  const v = new Violations();
  const debits = input.type === 'direct_debit';
  const format = input.format ?? (debits ? settings['sepa.format'] : PAIN_001_FORMATS[0]);
  if (!FORMATS[input.type].includes(format)) v.add('format', `A ${input.type} file is written as ${FORMATS[input.type].join(' or ')}.`, 'format_mismatch');
  const today = localDay(ctx.now, ctx.tenant.timeZone);
  const earliest = nextTargetBusinessDay(today);
  const date = input.collectionDate ?? earliest;
  if (date < earliest) {
    v.add('collectionDate', `Must be ${earliest} or later: the bank needs the file one TARGET business day ahead (today is ${today}).`, 'too_early');
  } else {
    const closure = targetClosure(date);
    if (closure) v.add('collectionDate', `${date} is ${closure === 'weekend' ? 'a weekend day' : 'a TARGET holiday'}; SEPA settles on TARGET business days only (the next one is ${nextTargetBusinessDay(date)}).`, 'not_business_day');
  }
  let creditorId = '';
  if (debits) {
    creditorId = (settings['sepa.creditorId'] ?? '').replace(/\s+/g, '').toUpperCase();
    const problem = creditorId ? creditorIdProblem(creditorId) : null;
    if (!creditorId) v.add('sepa.creditorId', "Direct-debit files need the tenant's SEPA creditor identifier: set the setting sepa.creditorId (PATCH /settings).", 'required');
    else if (problem) v.add('sepa.creditorId', `${problem} Fix the setting sepa.creditorId (PATCH /settings).`, 'invalid_creditor_id');
  }
  const bank = documents.bankAccount;
  if (!bank?.iban) v.add('bankAccount', `The tenant's bank account is missing: set bankAccount in PUT /settings/documents (the account ${debits ? 'the debits are paid into' : 'the transfers are paid from'}).`, 'required');
  v.throwIfAny();
  return {
    format,
    date,
    createdAt: ctx.now,
    account: { name: documents.seller.name || ctx.tenant.name, iban: bank!.iban, bic: bank!.bic ?? undefined },
    creditorId,
  };
}

/** GrpHdr/MsgId: kind, date and the file id's leading (time-ordered) hex digits; 35 characters, unique per tenant. */
const messageIdFor = (type: SepaFileType, date: string, fileId: string) => `${type === 'direct_debit' ? 'DD' : 'CT'}-${date.replace(/-/g, '')}-${fileId.replace(/-/g, '').slice(0, 23)}`;

function nothingToCollect(type: SepaFileType, skipped: SepaSkipped[]): ApiError {
  const what = type === 'direct_debit' ? 'No invoice is due for a SEPA direct debit' : 'No refund or credit note is due for a SEPA credit transfer';
  const why = skipped.length
    ? ` ${skipped.length} due item(s) cannot be written: ${skipped
        .slice(0, 5)
        .map((s) => `${s.invoice?.number ?? s.transactionId ?? '?'}: ${s.reason}`)
        .join('; ')}${skipped.length > 5 ? '; …' : ''}`
    : '';
  return ApiError.conflict(`${what}; no file was written.${why}`, 'nothing-to-collect');
}

/**
 * Writes the SEPA file of everything due now. The XML goes to R2 first (a file nothing refers to
 * is harmless), then one batch records the file, its transactions, its Media row and the rest of
 * the plan. An invoice is in at most one live file: the transactions' partial unique index refuses
 * a second live debit, so of two files made at once the later batch fails as a whole and is
 * planned again from a fresh read (once; then 409).
 */
export async function createSepaFile(ctx: ServiceContext, input: SepaFileInput): Promise<SepaFileCreatedResource> {
  const basics = await fileBasics(ctx, input);
  for (let attempt = 1; ; attempt += 1) {
    const fileId = newId();
    const frame: SepaFileFrame = { ...basics, fileId, messageId: messageIdFor(input.type, basics.date, fileId) };
    const plan = input.type === 'direct_debit' ? await planDebits(ctx, frame) : await planTransfers(ctx, frame);
    if (plan.amounts.length === 0) throw nothingToCollect(input.type, plan.skipped);
    const file = await storeFile(ctx, {
      ownerType: SEPA_FILE_OWNER,
      ownerId: fileId,
      purpose: 'xml',
      key: `${ctx.tenant.id}/sepa/${fileId}/${frame.messageId}.xml`,
      bytes: new TextEncoder().encode(plan.xml),
      mimeType: 'application/xml',
      fileExtension: 'xml',
      fileName: `${frame.messageId}.xml`,
    });
    const row: SepaFileRow = {
      id: fileId,
      tenantId: ctx.tenant.id,
      kind: input.type,
      format: frame.format,
      messageId: frame.messageId,
      collectionDate: frame.date,
      numberOfTransactions: plan.amounts.length,
      controlSum: plan.amounts.reduce((a, b) => a + b, 0),
      currencyCode: SEPA_CURRENCY,
      mediaId: file.id,
      createdAt: ctx.now.toISOString(),
    };
    try {
      await runBatch(ctx.db, [ctx.db.insert(sepaFiles).values(row), ...insertJsonRows(ctx.db, transactions, plan.inserts), ...plan.statements, ctx.db.insert(media).values(file)]);
    } catch (err) {
      if (!isUniqueViolation(err) && !isGuardFailure(err)) throw err;
      if (attempt < 2) continue;
      throw ApiError.conflict('Another SEPA file took some of the same items at the same time; retry.', 'concurrent-update');
    }
    return { ...renderSepaFile(row, file), skipped: plan.skipped };
  }
}

export function renderSepaFile(r: SepaFileRow, file: MediaRow | null): SepaFileResource {
  return {
    id: r.id,
    type: r.kind,
    format: r.format as SepaFormat,
    messageId: r.messageId,
    collectionDate: r.collectionDate,
    numberOfTransactions: r.numberOfTransactions,
    controlSum: sepaAmountText(r.controlSum),
    currencyCode: r.currencyCode,
    createdAt: r.createdAt,
    file: file ? renderMedia(file) : null,
  };
}

export const sepaFileListQuery = z.object({ ...paginationQuery, type: z.enum(SEPA_FILE_TYPES).optional() });

/** The tenant's files, newest first. */
export async function listSepaFiles(ctx: ServiceContext, query: z.output<typeof sepaFileListQuery>) {
  const where = and(eq(sepaFiles.tenantId, ctx.tenant.id), query.type ? eq(sepaFiles.kind, query.type) : undefined);
  const page = await fetchPage(ctx.db, sepaFiles, where, [desc(sepaFiles.createdAt), desc(sepaFiles.id)], query, (r) => r);
  const ids = page.data.flatMap((r) => (r.mediaId ? [r.mediaId] : []));
  const files = ids.length ? await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), inJson(media.id, ids))) : [];
  const byId = new Map(files.map((m) => [m.id, m]));
  return { ...page, data: page.data.map((r) => renderSepaFile(r, r.mediaId ? (byId.get(r.mediaId) ?? null) : null)) };
}

async function loadSepaFile(ctx: ServiceContext, id: string) {
  const [rows, files] = await ctx.db.batch([
    ctx.db.select().from(sepaFiles).where(and(eq(sepaFiles.tenantId, ctx.tenant.id), eq(sepaFiles.id, id))),
    ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, SEPA_FILE_OWNER), eq(media.ownerId, id))),
  ]);
  if (!rows[0]) throw ApiError.notFound('SEPA file');
  return { row: rows[0], file: files.find((m) => m.id === rows[0]!.mediaId) ?? null };
}

/** A file with its transactions (what each debit or transfer is for; IBANs masked). */
export async function getSepaFile(ctx: ServiceContext, id: string): Promise<SepaFileDetailResource> {
  const { row, file } = await loadSepaFile(ctx, id);
  const items = await ctx.db
    .select({ tx: transactions, iban: paymentMethods.iban, mandateReference: paymentMethods.mandateReference })
    .from(transactions)
    .leftJoin(paymentMethods, and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.id, transactions.paymentMethodId), eq(paymentMethods.type, 'sepa_debit')))
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.sepaFileId, id)))
    .orderBy(asc(transactions.sepaSequenceType), asc(transactions.id));
  return {
    ...renderSepaFile(row, file),
    transactions: items.map(({ tx, iban, mandateReference }) => ({
      id: tx.id,
      type: tx.type === 'payment' ? 'payment' : 'refund',
      status: tx.status,
      customer: { id: tx.customerId },
      invoice: tx.invoiceId ? { id: tx.invoiceId, number: tx.documentNumber } : null,
      amount: sepaAmountText(tx.amount),
      sequenceType: tx.sepaSequenceType === 'FRST' || tx.sepaSequenceType === 'RCUR' ? tx.sepaSequenceType : null,
      endToEndId: tx.referenceId ?? '',
      mandateReference: tx.type === 'payment' ? mandateReference : null,
      iban: iban ? maskIban(iban) : null,
    })),
  };
}

/**
 * A signed, expiring link to the file's XML, served by the public download route of documents
 * (GET /public/documents/{fileId}); expiry on the wall clock, like every download link.
 */
export async function sepaDownloadLink(ctx: ServiceContext, id: string, origin: string, secondsValid: number): Promise<SepaDownloadLink> {
  const { file } = await loadSepaFile(ctx, id);
  if (!file) throw ApiError.notFound('SEPA file XML');
  const expires = Math.floor(systemNow().getTime() / 1000) + secondsValid;
  return {
    url: await signedUrl(ctx, origin, file, expires),
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}
