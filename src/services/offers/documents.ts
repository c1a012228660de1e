import { pdfAssets } from '../../documents/assets';
import type { AuditLogModel, OfferParty, SignedOfferModel } from '../../documents/offer/model';
import { renderAuditLog, renderSignedOffer } from '../../documents/offer/pdf';
import { ApiError } from '../../http/errors';
import { systemNow } from '../../lib/clock';
import type { ServiceContext } from '../context';
import { partnerName } from '../customers/render';
import { signedUrl } from '../documents/links';
import { safeFileName, storeFile, type MediaRow } from '../documents/media';
import { sellerParty } from '../documents/model';
import { loadDocumentSettings } from '../documents/settings';
import type { OfferContent } from './content';
import { loadOffer, type OfferAggregate, type RecipientRow } from './read';

// The files of a signed offer (docs/decisions.md, Offers): the signed document and the audit log,
// rendered from what was signed and stored once in R2 as Media of the offer. The audit log names
// the signed document by the SHA-256 of the bytes stored, so it can be checked against the file.

const recipientName = (r: RecipientRow) => [r.firstName, r.lastName].filter(Boolean).join(' ') || r.email;

async function parties(ctx: ServiceContext, agg: OfferAggregate): Promise<{ seller: OfferParty; buyer: OfferParty | null }> {
  const s = sellerParty(await loadDocumentSettings(ctx.db, ctx.tenant.id), ctx.tenant);
  const address = [s.address.line1, s.address.line2, [s.address.postcode, s.address.city].filter(Boolean).join(' ')].filter((l): l is string => !!l);
  const seller = { name: s.name, lines: [...address, s.contact.email, s.website].filter((l): l is string => !!l) };
  const c = agg.customer;
  if (c) return { seller, buyer: { name: partnerName(c), lines: [c.customerNumber, c.email].filter(Boolean) } };
  const signer = agg.recipients.find((r) => r.role === 'sign');
  const company = agg.row.prospect?.companyName;
  if (company) return { seller, buyer: { name: company, lines: signer ? [recipientName(signer)] : [] } };
  return { seller, buyer: signer ? { name: recipientName(signer), lines: [signer.email] } : null };
}

export function signedModel(agg: OfferAggregate, content: OfferContent, parts: { seller: OfferParty; buyer: OfferParty | null }, signedAt: string): SignedOfferModel {
  const t = content.totals;
  return {
    language: agg.row.locale,
    seller: parts.seller,
    buyer: parts.buyer,
    number: agg.row.number,
    title: content.name,
    description: content.description,
    sections: content.sections,
    currency: t?.currencyCode ?? null,
    lineItems: content.offerLineItems.map((i) => ({
      name: i.name,
      description: i.description,
      quantity: i.quantity,
      billingInterval: i.billingInterval,
      type: i.type,
      payInAdvance: i.payInAdvance,
      unitPrice: i.unitPrice,
      recurringAmount: i.recurringAmount?.amount ?? null,
      firstInvoiceAmount: i.firstInvoiceAmount?.amount ?? null,
      taxRate: i.taxRate,
    })),
    totals: t && { net: t.netAmount.amount, discount: t.discountAmount.amount, tax: t.taxAmount.amount, gross: t.grossAmount.amount, firstBillingDate: t.firstBillingDate },
    terms: content.terms,
    contactPerson: content.contactPerson ? `${content.contactPerson.firstName} ${content.contactPerson.lastName}` : null,
    pricedAt: content.pricedAt,
    signedAt,
    signatures: agg.recipients
      .filter((r) => r.role === 'sign' && r.signingStatus === 'signed')
      .sort((a, b) => (a.signedAt! < b.signedAt! ? -1 : a.signedAt! > b.signedAt! ? 1 : 0))
      .map((r) => ({ name: recipientName(r), email: r.email, signingName: r.signingName ?? '', signedAt: r.signedAt! })),
  };
}

export function auditModel(agg: OfferAggregate, seller: string, signedAt: string, signed: Pick<MediaRow, 'fileName' | 'sha256' | 'byteSize'>): AuditLogModel {
  const entries = agg.recipients
    .flatMap((r) => r.signingLog.map((e) => ({ ...e, recipient: `${recipientName(r)} <${r.email}>` })))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return {
    language: agg.row.locale,
    seller,
    number: agg.row.number,
    title: agg.row.content?.name ?? agg.row.name,
    signedAt,
    signedDocument: { fileName: signed.fileName, sha256: signed.sha256, byteSize: signed.byteSize },
    recipients: agg.recipients.map((r) => ({ name: recipientName(r), email: r.email, role: r.role, signingStatus: r.signingStatus, signingName: r.signingName, signedAt: r.signedAt })),
    entries: entries.map((e) => ({ at: e.at, recipient: e.recipient, action: e.action, ip: e.ip, userAgent: e.userAgent })),
  };
}

/**
 * Renders and stores both files of a signed offer (R2 written once: a second render finds the
 * first one's bytes and records them). The audit log is rendered from the signed file as stored.
 */
export async function storeOfferDocuments(ctx: ServiceContext, agg: OfferAggregate, content: OfferContent, signedAt: string): Promise<{ signed: MediaRow; audit: MediaRow }> {
  const parts = await parties(ctx, agg);
  const base = `${ctx.tenant.id}/offers/${agg.row.id}/${agg.row.number}`;
  const signedName = safeFileName(`${agg.row.number}-signed.pdf`);
  const signed = await storeFile(ctx, {
    ownerType: 'offer',
    ownerId: agg.row.id,
    purpose: 'pdf',
    key: `${base}-signed.pdf`,
    bytes: await renderSignedOffer(signedModel(agg, content, parts, signedAt), pdfAssets),
    mimeType: 'application/pdf',
    fileExtension: 'pdf',
    fileName: signedName,
  });
  const audit = await storeFile(ctx, {
    ownerType: 'offer',
    ownerId: agg.row.id,
    purpose: 'audit_log',
    key: `${base}-audit-log.pdf`,
    bytes: await renderAuditLog(auditModel(agg, parts.seller.name, signedAt, signed), pdfAssets),
    mimeType: 'application/pdf',
    fileExtension: 'pdf',
    fileName: safeFileName(`${agg.row.number}-audit-log.pdf`),
  });
  return { signed, audit };
}

/** Signed, expiring links to both files of a signed offer (the download links of documents). */
export async function offerDownloadLink(ctx: ServiceContext, id: string, origin: string, secondsValid: number) {
  const agg = await loadOffer(ctx, id);
  const signed = agg.media.find((m) => m.id === agg.row.signedDocumentId);
  const audit = agg.media.find((m) => m.id === agg.row.auditLogDocumentId);
  if (!signed || !audit) throw ApiError.conflict(`The offer has no signed documents (it is ${agg.row.status}).`, 'invalid-transition');
  // Links expire on the wall clock, where they are checked.
  const expires = Math.floor(systemNow().getTime() / 1000) + secondsValid;
  return {
    signedDocumentUrl: await signedUrl(ctx, origin, signed, expires),
    auditLogDocumentUrl: await signedUrl(ctx, origin, audit, expires),
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}
