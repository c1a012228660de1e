import type { BatchItem } from 'drizzle-orm/batch';
import { runBatch, type Db } from '../../db/client';
import type { Env } from '../../env';
import type { appliedDiscounts, offers, subscriptionItems, subscriptions } from '../../db/schema';
import { tenantObject } from '../../objects/tenant-stub';

/** What a number is formatted from: the range's format, the document's date in a time zone, the customer's number. */
export interface NumberedDocument {
  tenantId: string;
  format: string;
  timeZone: string;
  customerNumber: string;
  /** ISO instant of the document (the tenant's now). */
  date: string;
}

/** What the TenantObject needs to finalize one document. */
export interface FinalizeRequest extends NumberedDocument {
  invoiceId: string;
  /** The document type; each type has its own number range. */
  type: string;
  /** The draft's updatedAt that the worker validated; a change since then refuses the finalization. */
  expectedUpdatedAt: string;
  /** Columns to set together with the number (status, dates, totals…). */
  set: Record<string, unknown>;
  /** The events to write in the same batch; `{number}` in their data is filled in. */
  events: { id: string; type: string; version: string; resourceId: string; data: Record<string, unknown>; createdAt: string }[];
}

export type FinalizeResult = { ok: true; number: string; numberSeq: number } | { ok: false; reason: 'not_draft' };

/** What the TenantObject needs to issue one dunning document (docs/decisions.md, Dunning). */
export interface DunningIssueRequest extends NumberedDocument {
  invoiceId: string;
  /** The invoice's updatedAt as the run read it; a change since then (a payment) refuses the document. */
  expectedUpdatedAt: string;
  /** `reminder` or `dunning`: each has its own range. */
  type: 'reminder' | 'dunning';
  /** The dunning_documents row without `number` and `numberSeq`; `{number}` in its texts is filled in. */
  document: Record<string, unknown>;
  /** Columns of the invoice to set together with the document (level, status, updatedAt…). */
  invoiceSet: Record<string, unknown>;
  /** The events to write in the same batch; `{number}` in their data is filled in. */
  events: FinalizeRequest['events'];
}

export type DunningIssueResult = { ok: true; number: string; numberSeq: number } | { ok: false; reason: 'invoice_changed' | 'level_exists' };

/**
 * What the TenantObject needs to create an offer with the next number of the offer range
 * (docs/decisions.md, Offers): the rows to insert, what they point at, and the events. Plain data,
 * as an RPC argument must be; the object builds the statements (`offerIssueStatements`).
 */
export interface OfferIssueRequest extends NumberedDocument {
  /** The offers row without `number` and `numberSeq`. */
  offer: Omit<typeof offers.$inferInsert, 'number' | 'numberSeq'>;
  /** A subscription made with the offer (status `offer`): its row, items and applied discounts. */
  subscription: { row: typeof subscriptions.$inferInsert; items: (typeof subscriptionItems.$inferInsert)[]; discounts: (typeof appliedDiscounts.$inferInsert)[] } | null;
  /** A draft subscription that becomes the offer's: it must still be a draft with this updatedAt. */
  fromDraft: { id: string; expectedUpdatedAt: string; updatedAt: string } | null;
  /** Records the rows point at, which must still exist when the batch runs. */
  references: { customerId: string | null; contactPersonId: string | null; invoiceAddressId: string | null };
  /** The events to write in the same batch; `{number}` in their data is filled in. */
  events: FinalizeRequest['events'];
}

export type OfferIssueResult =
  | { ok: true; number: string; numberSeq: number }
  | { ok: false; reason: 'reference_gone' | 'subscription_number_taken' };

/**
 * The one door to document numbers: the TenantObject allocates the next number of a type's range
 * in the same D1 batch as the status change, so numbers are gap-free (docs/decisions.md, numbering).
 */
export interface Numbering {
  /**
   * Finalizes a draft. `leading` statements (a billing run's draft, its ledger rows) are written
   * first: inside the TenantObject in the numbering batch itself, elsewhere in a batch of their own
   * before the object is asked (a crash in between leaves a draft the next billing run finalizes).
   */
  finalize(req: FinalizeRequest, leading?: BatchItem<'sqlite'>[]): Promise<FinalizeResult>;
  /**
   * Numbers a block of new documents (a billing run's chunk, each taking the next number of its
   * type's range in the order given) and writes the statements `build` makes with those numbers in
   * one batch. Inside the TenantObject only (undefined elsewhere): it holds the object's queue for
   * one batch, which the object's own billing run can afford and a request through the stub cannot.
   * A failed batch is thrown and moves no range.
   */
  finalizeBlock?(docs: (NumberedDocument & { type: string })[], build: (numbers: { number: string; numberSeq: number }[]) => BatchItem<'sqlite'>[]): Promise<{ number: string; numberSeq: number }[]>;
  /** Issues a dunning document: its number, the document, the invoice's change and the events, in one batch. */
  issueDunning(req: DunningIssueRequest): Promise<DunningIssueResult>;
  /** Creates an offer: its number, the offer, its subscription and the events, in one batch. */
  issueOffer(req: OfferIssueRequest): Promise<OfferIssueResult>;
}

/** Numbering outside the TenantObject: through its stub (one RPC per document). */
export function stubNumbering(env: Env, db: Db): Numbering {
  return {
    async finalize(req, leading = []) {
      await runBatch(db, leading);
      return tenantObject(env, req.tenantId).finalizeDocument(req);
    },
    issueDunning: (req) => tenantObject(env, req.tenantId).issueDunningDocument(req),
    issueOffer: (req) => tenantObject(env, req.tenantId).issueOffer(req),
  };
}
