import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { requireCondition, type Db } from '../../db/client';
import { guardedUpdate } from '../../db/commit';
import { insertRows } from '../../db/insert';
import { appliedDiscounts, offers, subscriptionItems, subscriptions } from '../../db/schema';
import type { OfferIssueRequest } from '../ports/numbering';
import { addressExists, customerExists } from '../customers/guards';

/**
 * The statements that create an offer with its number, built inside the TenantObject from the
 * request's plain rows (src/objects/tenant-object.ts, issueOffer): the subscription it sells (new,
 * or a draft taken over), the offer, and guards that what they point at still exists.
 */
export function offerIssueStatements(db: Db, req: OfferIssueRequest, number: string, numberSeq: number): BatchItem<'sqlite'>[] {
  const t = req.tenantId;
  const statements: BatchItem<'sqlite'>[] = [];
  if (req.subscription) {
    statements.push(
      db.insert(subscriptions).values(req.subscription.row),
      ...insertRows(db, subscriptionItems, req.subscription.items),
      ...insertRows(db, appliedDiscounts, req.subscription.discounts),
    );
  }
  if (req.fromDraft) {
    statements.push(
      ...guardedUpdate(db, {
        table: subscriptions,
        tenantId: t,
        id: req.fromDraft.id,
        expectedUpdatedAt: req.fromDraft.expectedUpdatedAt,
        set: { status: 'offer', updatedAt: req.fromDraft.updatedAt },
        where: eq(subscriptions.status, 'draft'),
      }),
    );
  }
  statements.push(db.insert(offers).values({ ...req.offer, number, numberSeq }));
  const { customerId, contactPersonId, invoiceAddressId } = req.references;
  if (customerId) statements.push(requireCondition(db, customerExists(t, customerId)));
  if (customerId && invoiceAddressId) statements.push(requireCondition(db, addressExists(t, customerId, invoiceAddressId)));
  if (contactPersonId) statements.push(requireCondition(db, sql`EXISTS (SELECT 1 FROM contact_persons WHERE tenant_id = ${t} AND id = ${contactPersonId})`));
  return statements;
}
