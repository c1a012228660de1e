/**
 * Every event a webhook can subscribe to, with what it means; GET /available-webhook-events lists
 * them. It holds every name Fynn's clients offer (the n8n trigger's 57 and Fynn's docs), including
 * those whose feature has not landed yet: the last group, listed in docs/decisions.md (Events and
 * webhooks), which are accepted but not emitted until their feature emits them.
 */
export const EVENT_CATALOGUE = {
  'customer.created': 'A customer was created.',
  'customer.updated': 'A customer, one of its addresses, e-mail addresses, settings or its partner changed.',
  'customer.archived': 'A customer was archived.',
  'customer.unarchived': 'An archived customer was made active again.',
  'customer.deleted': 'A customer without documents was deleted.',
  'product_family.created': 'A product family was created.',
  'product_family.updated': 'A product family was renamed.',
  'product_family.deleted': 'A product family was deleted.',
  'product.created': 'A product was created.',
  'product.updated': 'A product changed.',
  'product.deleted': 'A product was deleted.',
  'product.archived': 'A product was archived and can no longer go into new subscriptions.',
  'product.unarchived': 'An archived product can be sold again.',
  'unit.created': 'A unit was created.',
  'unit.updated': 'A unit changed.',
  'unit.deleted': 'A unit was deleted.',
  'measurement.created': 'A measurement was created.',
  'measurement.updated': 'A measurement changed.',
  'measurement.deleted': 'A measurement was deleted.',
  'cost_centre.created': 'A cost centre was created.',
  'cost_centre.updated': 'A cost centre changed.',
  'cost_centre.deleted': 'A cost centre was deleted.',
  'cancellation_reason.created': 'A cancellation reason was created.',
  'cancellation_reason.updated': 'A cancellation reason changed.',
  'cancellation_reason.deleted': 'A cancellation reason was deleted.',
  'billing_group.created': 'A billing group was created.',
  'billing_group.updated': 'A billing group changed.',
  'billing_group.deleted': 'A billing group was deleted.',
  'tax_group.created': 'A tax group was created.',
  'tax_group.updated': 'A tax group changed.',
  'tax_group.deleted': 'A tax group was deleted.',
  'tax.created': 'A tenant tax rate was added.',
  'tax.updated': 'A tenant tax rate changed.',
  'tax.deleted': 'A tenant tax rate was removed.',
  'plan.created': 'A plan was created.',
  'plan.updated': 'A plan changed, including its status.',
  'plan.deleted': 'A draft plan was deleted.',
  'price_plan.created': 'A price plan was created.',
  'price_plan.updated': 'A price plan changed.',
  'price_plan.deleted': 'A price plan that was never used was deleted.',
  'price_plan.archived': 'A price plan was archived; it is no longer offered.',
  'coupon.created': 'A coupon was created.',
  'coupon.updated': 'A coupon changed.',
  'coupon.deleted': 'A coupon was deleted.',
  'coupon.toggled': 'A coupon was enabled or disabled.',
  'subscription.created': 'A subscription was created (as a draft).',
  'subscription.activated': 'A draft subscription was activated; billing starts.',
  'subscription.updated': 'A subscription or one of its items changed.',
  'subscription.paused': 'A subscription was paused; it is not billed meanwhile.',
  'subscription.resumed': 'A paused subscription was resumed.',
  'subscription.canceled': 'A subscription was cancelled, now or for a future date.',
  'subscription.cancellation_revoked': 'A pending cancellation was revoked.',
  'subscription.terminated': 'A subscription was terminated; nothing more is billed.',
  'subscription.trial_extended': 'The trial of a subscription was extended.',
  'subscription.trial_expired': 'The trial of a subscription ended (or was revoked).',
  'subscription.products.ordered': 'Add-ons or one-time charges were added to a subscription.',
  'subscription.payment_method.updated': 'The payment method of a subscription changed.',
  'subscription.invoice_address.updated': 'The invoice address of a subscription changed.',
  'subscription.deleted': 'A draft subscription was deleted.',
  'entitlement.state.updated': "A subscription's entitlements changed (activation, change or end).",
  'feature.created': 'An entitlement feature was created.',
  'feature.updated': 'An entitlement feature changed.',
  'feature.deleted': 'An entitlement feature was deleted.',
  'feature_assignment.created': 'A feature was assigned to a product or price plan.',
  'feature_assignment.deleted': 'A feature assignment was removed.',
  'invoice.created': 'A draft document (invoice, credit note…) was created.',
  'invoice.updated': 'A document changed (draft contents, note, address, dunning flag, payment).',
  'invoice.deleted': 'A draft was deleted.',
  'invoice.finalized': 'A document was finalized and got its number.',
  'invoice.paid': 'A document was paid in full.',
  'invoice.unpaid': 'A finalized document is waiting for payment.',
  'invoice.canceled': 'An invoice was cancelled by a cancellation document.',
  'invoice.credited': 'A credit note was issued against an invoice.',
  'invoice.closed': 'A document was closed without (full) payment.',
  'invoice.requires_approval': 'Billing created a draft that needs manual approval.',
  'subscription.billed': 'A billing run billed a subscription.',
  'subscription.billing_failed': 'A billing run could not bill a subscription; the event carries the reason. The next run tries again.',
  'subscription.item.quantity_changed': 'The quantity of a subscription item changed.',
  'subscription.changed': 'A subscription item moved to another price plan (an upgrade or a downgrade), now or at the end of its billed period.',
  'invoice.payment_method.updated': 'The payment method of a document changed.',
  'invoice.pdf.generation_requested': "A finalized document's PDF (and e-invoice) was queued for rendering; invoice.updated with its file follows.",
  'payment_method.created': 'A payment method was added to a customer.',
  'payment_method.updated': 'A payment method of a customer changed (name, default, enabled, status, revoked).',
  'invoice.refunded': 'A payment of a document was refunded (in part or in full).',
  'transaction.succeeded': 'A payment or refund went through: the gateway confirmed it, or the bank statement shows it.',
  'transaction.failed': 'A payment or refund failed; failReason says why. A failed collection is retried on the schedule of payments.retryDays.',
  'transaction.returned': 'A collected SEPA direct debit came back from the payer’s bank (an R-transaction); the invoice is unpaid again.',
  // Not emitted yet: their feature has not landed (docs/decisions.md, Events and webhooks).
  'customer.merged': 'Several customers were merged into one.',
  'customer.parent.assigned': 'A parent customer was assigned in the organisation hierarchy.',
  'customer.parent.removed': 'A parent customer was removed from the organisation hierarchy.',
  'invoice.remindered': 'A payment reminder was sent for a document.',
  'subscription.delivery_address.updated': 'The delivery address of a subscription changed.',
  'subscription.item.metered': 'Usage was recorded for a metered subscription item.',
  'subscription.item.instant_metered': 'Usage of an instantly billed item was recorded and billed.',
  'subscription_item.terminated': 'A subscription item ended; nothing more is billed for it.',
  'dunning_document.created': 'A dunning document (reminder) was created.',
  'dunning_document.paid': 'A dunning document was paid.',
  'dunning_document.canceled': 'A dunning document was cancelled.',
  'cart.completed': 'A checkout cart was completed.',
  'cart.paid': 'A checkout cart was paid.',
  'feature.activated': 'An entitlement feature was activated.',
  'feature.archived': 'An entitlement feature was archived.',
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;

/**
 * The payload version written on every event and sent as `event.version`: the value Fynn documents.
 * A webhook's `version` selects it; there is one payload format, so every accepted spelling maps to it.
 */
export const EVENT_VERSION = '1.0.0';

/** The `version` values webhooks may be registered with: n8n's `v1`, Fynn's `1.0.0`, and our former `2026-11-01`. */
export const EVENT_VERSION_ALIASES: Readonly<Record<string, string>> = { v1: EVENT_VERSION, '1.0.0': EVENT_VERSION, '2026-11-01': EVENT_VERSION };

/** The payload version a requested or stored version stands for; null when unknown. */
export function payloadVersion(version: string): string | null {
  return Object.hasOwn(EVENT_VERSION_ALIASES, version) ? EVENT_VERSION_ALIASES[version]! : null;
}
