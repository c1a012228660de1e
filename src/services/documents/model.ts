import { currencyScale, Dec, formatDecimal, fromMinorUnits } from '../../billing/money';
import { localDay } from '../../billing/periods';
import type { DocumentKind, DocumentLanguage, DocumentLine, DocumentModel, DocumentTypeCode, LineGroup, PaymentInstructions, SellerParty, VatBreakdown, VatCategory } from '../../documents/model';
import { formatDate } from '../../documents/pdf/format';
import type { ServiceContext } from '../context';
import type { InvoiceAggregate, PositionRow } from '../invoices/render';
import type { DocumentSettingsRow } from './settings';
import { loadInvoiceDocumentInputs, loadTenantDocumentInputs, type InvoiceDocumentInputs, type TenantDocumentInputs } from './inputs';
import { DEFAULT_EXEMPTION, DEFAULT_TEXTS, fillIn, generatedReversalTitle, groupDescription, legalNote, PAYMENT_TEXTS, PREVIEW_TITLES, VATEX } from './texts';

// The document model of a stored invoice (or of a draft or an estimate, as a preview): what the
// PDF and the e-invoice show (src/documents/model.ts). Reads what the invoice row does not hold
// (settings, logo, the original's number, the subscription's number, the payment method) and
// maps amounts from minor units, signed as the document type states them.

const KIND: Record<string, DocumentKind> = {
  TYPE_INVOICE: 'invoice',
  TYPE_CREDIT: 'credit_note',
  TYPE_CANCEL: 'cancellation',
  TYPE_REFUND: 'refund',
  TYPE_REMINDER: 'reminder',
  TYPE_DUNNING: 'dunning',
};

/**
 * UNTDID 1001 per document type (docs/decisions.md, Documents): a credit note or refund states
 * positive amounts as a credit (381); a cancellation reverses its invoice as a corrected invoice
 * with negative amounts (384).
 */
const TYPE_CODE: Record<DocumentKind, DocumentTypeCode> = { invoice: '380', credit_note: '381', refund: '381', cancellation: '384', reminder: '380', dunning: '380' };

/** UN/ECE Recommendation 20 codes for the unit names tenants commonly use; anything else is "one". */
const UNIT_CODES: Record<string, string> = {
  hour: 'HUR', hours: 'HUR', stunde: 'HUR', stunden: 'HUR', h: 'HUR',
  day: 'DAY', days: 'DAY', tag: 'DAY', tage: 'DAY',
  month: 'MON', months: 'MON', monat: 'MON', monate: 'MON',
  year: 'ANN', years: 'ANN', jahr: 'ANN', jahre: 'ANN',
  minute: 'MIN', minutes: 'MIN', minuten: 'MIN',
  gb: 'E34', gigabyte: 'E34', mb: '4L', megabyte: '4L', tb: 'E35', terabyte: 'E35',
  kwh: 'KWH', km: 'KMT', kg: 'KGM',
};

export interface ModelOptions {
  /** A draft or an estimate: no number, marked as preview. */
  preview: boolean;
}

/** The seller as every document names it: the letterhead of the document settings. */
export function sellerParty(settings: DocumentSettingsRow, tenant: { name: string; countryCode: string }): SellerParty {
  return {
    name: settings.seller.name ?? tenant.name,
    tradingName: settings.seller.tradingName,
    address: { line1: settings.seller.street, line2: settings.seller.addition, postcode: settings.seller.zip, city: settings.seller.city, countryCode: tenant.countryCode },
    vatId: settings.seller.vatId,
    taxNumber: settings.seller.taxNumber,
    registration: settings.seller.registration,
    legalInfo: settings.seller.legalInfo,
    contact: { name: settings.seller.contactName, email: settings.seller.email, phone: settings.seller.phone },
    website: settings.seller.website,
  };
}

/**
 * The document of one invoice. `inputs`: what a batch of documents read together (the queue
 * consumer); without them this reads its own.
 */
export async function documentModel(
  ctx: ServiceContext,
  agg: InvoiceAggregate,
  options: ModelOptions,
  inputs?: { tenant: TenantDocumentInputs; invoice: InvoiceDocumentInputs },
): Promise<DocumentModel> {
  if (inputs) return modelOf(ctx, agg, options, inputs.tenant, inputs.invoice);
  const [tenant, byAgg] = await Promise.all([loadTenantDocumentInputs(ctx), loadInvoiceDocumentInputs(ctx, [agg])]);
  return modelOf(ctx, agg, options, tenant, byAgg.get(agg)!);
}

function modelOf(ctx: ServiceContext, agg: InvoiceAggregate, options: ModelOptions, shared: TenantDocumentInputs, own: InvoiceDocumentInputs): DocumentModel {
  const { row: r, customer: c } = agg;
  const loaded = { ...own, logo: shared.logo, paymentMethod: own.paymentMethod && { ...own.paymentMethod, creditorId: shared.creditorId } };
  const { settings, tenant } = shared;
  const kind = KIND[r.type] ?? 'invoice';
  const typeCode = TYPE_CODE[kind];
  const language: DocumentLanguage = c.language === 'en' ? 'en' : 'de';
  const currency = r.currencyCode;
  const scale = currencyScale(currency);
  // A credit note states its (stored negative) amounts as positive credits.
  const sign = typeCode === '381' ? -1 : 1;
  const amount = (minor: number) => formatDecimal(fromMinorUnits(minor * sign || 0, currency), scale);
  const tz = c.timeZone;
  const day = (iso: string | null) => (iso ? localDay(new Date(iso), tz) : null);
  // Periods are half-open: a period ending at local midnight ends on the day before.
  const lastDay = (iso: string | null) => {
    if (!iso) return null;
    const end = new Date(iso);
    const before = new Date(end.getTime() - 1);
    return localDay(end, tz) === localDay(before, tz) ? localDay(end, tz) : localDay(before, tz);
  };
  const period = (from: string | null, to: string | null) => {
    const a = day(from);
    const b = lastDay(to);
    return a && b && b >= a ? { from: a, to: b } : null;
  };

  const { groups, lines } = documentLines(agg.positions, { currency, scale, sign, language, period, productNumbers: loaded.productNumbers });
  const vat = vatBreakdown(r.taxBreakdown ?? [], lines, agg.positions, { currency, scale, sign, language });
  const legalNotes = [...new Set(agg.positions.filter((p) => p.kind !== 'header' && p.taxNote).map((p) => legalNote(p.taxNote!, language)))];
  const number = options.preview ? null : r.number;
  const original = loaded.original;
  const texts = settings.texts[language]?.[kind === 'refund' ? 'refund' : kind] ?? null;
  const defaults = DEFAULT_TEXTS[language][kind] ?? DEFAULT_TEXTS[language].invoice!;
  const sellerName = settings.seller.name ?? tenant.name;
  const values = { number, originalNumber: original?.number ?? null, seller: sellerName };
  // Crediting and cancelling store an English title for the API ("Credit note for RE-1: …"); the
  // document is titled in its own language with its own number, and keeps the reason.
  const reversal = original?.number ? generatedReversalTitle(kind, r.title, original.number, language) : null;
  const ownTitle = reversal ? null : r.title;
  const title = options.preview
    ? PREVIEW_TITLES[language][kind]
    : [fillIn(ownTitle ?? texts?.title ?? defaults.title, values), reversal?.reason].filter(Boolean).join(' – ');
  const gross = r.grossAmount * sign;
  const paid = r.paidAmount * sign;
  const address = (r.invoiceAddress ?? {}) as Record<string, string | null | undefined>;
  const person = [address.firstName, address.lastName].filter(Boolean).join(' ') || [c.firstName, c.lastName].filter(Boolean).join(' ') || null;
  const company = address.companyName ?? c.companyName ?? null;
  const issueDate = day(r.finalizationDate ?? ctx.now.toISOString())!;
  // Only a buyer who owes something has a due date: a credit note (positive here) is owed to them.
  const dueDate = typeCode !== '381' && gross - paid > 0 ? day(r.dueDate) : null;
  const leitwegId = r.eInvoiceType === 'xrechnung' ? r.leitwegId : null;

  return {
    kind,
    typeCode,
    number,
    preview: options.preview,
    language,
    currency,
    issueDate,
    dueDate,
    title,
    introduction: r.introduction ?? fillIn(texts?.introduction ?? defaults.introduction, values),
    closing: r.closing ?? fillIn(texts?.closing ?? defaults.closing, values),
    buyerReference: leitwegId ?? c.customerNumber,
    orderReference: null,
    // A consolidated invoice bills several subscriptions: no one of them is the contract (BT-12).
    contractReference: groups.length > 1 ? null : loaded.subscriptionNumber,
    precedingInvoice: original?.number ? { number: original.number, issueDate: day(original.finalizationDate) } : null,
    servicePeriod: period(r.serviceDateFrom, r.serviceDateTo),
    seller: sellerParty(settings, tenant),
    logo: loaded.logo,
    buyer: {
      name: company ?? person ?? c.email,
      contactName: company ? person : null,
      address: {
        line1: [address.street, address.houseNumber].filter(Boolean).join(' ') || null,
        line2: address.addition || null,
        postcode: address.zip ?? null,
        city: address.city ?? null,
        countryCode: address.countryCode ?? c.countryCode,
      },
      vatId: address.vatId ?? c.vatId,
      email: c.email,
      customerNumber: c.customerNumber,
    },
    groups,
    lines,
    vat,
    totals: {
      lineNet: amount(r.netAmount),
      discount: formatDecimal(fromMinorUnits(Math.abs(r.discountAmount), currency), scale),
      net: amount(r.netAmount),
      tax: amount(r.taxAmount),
      gross: amount(r.grossAmount),
      paid: amount(r.paidAmount),
      due: amount(r.grossAmount - r.paidAmount),
    },
    payment: kind === 'invoice' ? paymentInstructions(settings, loaded.paymentMethod, language, number, dueDate) : null,
    legalNotes,
    exchangeRates: (r.exchangeRates ?? []).map((x) => ({
      from: String(x.sourceCurrencyCode),
      to: String(x.destinationCurrencyCode),
      rate: String(x.exchangeRate),
      date: String(x.exchangeRateDate ?? issueDate),
      source: language === 'de' ? 'Referenzkurs der Europäischen Zentralbank' : 'European Central Bank reference rate',
    })),
    notes: [],
  };
}

interface LineContext {
  currency: string;
  scale: number;
  sign: number;
  language: DocumentLanguage;
  period: (from: string | null, to: string | null) => { from: string; to: string } | null;
  /** The tenant's article numbers by product id. */
  productNumbers: ReadonlyMap<string, string>;
}

/** Lines of the document: headers become groups, every other position a line (sign normalised). */
export function documentLines(positions: readonly PositionRow[], x: LineContext): { groups: LineGroup[]; lines: DocumentLine[] } {
  const parents = new Set(positions.map((p) => p.parentId).filter((id): id is string => id !== null));
  const groups: LineGroup[] = positions.filter((p) => parents.has(p.id)).map((p) => ({ id: p.id, name: p.name, description: p.description && groupDescription(p.description, x.language) }));
  const money = (minor: number) => formatDecimal(fromMinorUnits(minor * x.sign || 0, x.currency), x.scale);
  const lines: DocumentLine[] = [];
  for (const p of positions) {
    // A header carries no amount; a parent with an amount of its own is also a line.
    if (p.kind === 'header' || (parents.has(p.id) && p.netAmount === 0 && p.discountAmount === 0)) continue;
    let quantity = new Dec(p.quantity).times(x.sign);
    let unitPrice = new Dec(p.unitPrice);
    // EN16931 prices are never negative (BR-27): a negative price moves its sign to the quantity.
    if (unitPrice.isNegative()) {
      unitPrice = unitPrice.negated();
      quantity = quantity.negated();
    }
    const discount = p.discountAmount;
    const net = p.netAmount;
    lines.push({
      id: p.id,
      number: lines.length + 1,
      groupId: p.parentId,
      name: p.name,
      description: p.description,
      quantity: quantity.toString(),
      unitCode: UNIT_CODES[(p.unit?.name ?? '').trim().toLowerCase()] ?? 'C62',
      unitName: p.unit?.name ?? null,
      unitPrice: unitPrice.toString(),
      grossNet: money(net + discount),
      allowance: discount === 0 ? null : { amount: money(discount), percentage: p.discountPercentage ?? null, reason: x.language === 'de' ? 'Rabatt' : 'Discount' },
      net: money(net),
      vatCategory: p.taxCategory as VatCategory,
      vatRate: new Dec(p.taxRate).toString(),
      period: x.period(p.serviceFrom, p.serviceTo),
      sellerItemId: p.productId ? (x.productNumbers.get(p.productId) ?? null) : null,
    });
  }
  return { groups, lines };
}

type StoredTax = { rate: string; category: string; taxableAmount: string; taxAmount: string };

/** The stored breakdown (major units, signed as stored) of the categories the lines use. */
function vatBreakdown(stored: readonly StoredTax[], lines: readonly DocumentLine[], positions: readonly PositionRow[], x: Omit<LineContext, 'period' | 'productNumbers'>): VatBreakdown[] {
  const used = new Set(lines.map((l) => `${l.vatCategory} ${l.vatRate}`));
  return stored
    .filter((t) => used.has(`${t.category} ${new Dec(t.rate).toString()}`))
    .map((t) => {
      const category = t.category as VatCategory;
      const note = positions.find((p) => p.kind !== 'header' && p.taxCategory === category && p.taxNote)?.taxNote ?? DEFAULT_EXEMPTION[category] ?? null;
      return {
        category,
        rate: new Dec(t.rate).toString(),
        taxable: formatDecimal(new Dec(t.taxableAmount).times(x.sign), x.scale),
        tax: formatDecimal(new Dec(t.taxAmount).times(x.sign), x.scale),
        exemptionReason: category === 'S' || category === 'Z' ? null : note && legalNote(note, x.language),
        exemptionCode: VATEX[category] ?? null,
      };
    });
}

interface DocumentPaymentMethod {
  type: string;
  mandateReference: string | null;
  iban: string | null;
  creditorId: string | null;
}

/**
 * How the customer pays, by the invoice's payment method (transfer when none). A SEPA debit names
 * its mandate, the tenant's creditor id and the debited account (BG-19; the PDF masks the IBAN).
 */
export function paymentInstructions(settings: DocumentSettingsRow, method: DocumentPaymentMethod | null, language: DocumentLanguage, number: string | null, dueDate: string | null): PaymentInstructions {
  const t = PAYMENT_TEXTS[language];
  const due = dueDate ? formatDate(dueDate, language) : null;
  const type = (method?.type ?? 'bank_transfer').toLowerCase();
  const base = { remittance: number, creditTransfer: null, directDebit: null };
  if (type.includes('sepa') || type.includes('debit')) {
    const directDebit = method?.mandateReference && method.creditorId ? { mandateReference: method.mandateReference, creditorId: method.creditorId, debitedIban: method.iban } : null;
    return { ...base, directDebit, meansCode: '59', meansText: t.directDebit, terms: t.debited };
  }
  if (type.includes('card')) return { ...base, meansCode: '54', meansText: t.card, terms: t.charged };
  if (type.includes('paypal') || type.includes('online')) return { ...base, meansCode: '68', meansText: t.online, terms: t.charged };
  const account = settings.bankAccount;
  return {
    ...base,
    meansCode: account ? '58' : '1',
    meansText: account ? t.transfer : t.other,
    creditTransfer: account ? { iban: account.iban, bic: account.bic, accountName: account.accountName ?? settings.seller.name, bankName: account.bankName } : null,
    terms: due ? t.payableBy(due) : null,
  };
}
