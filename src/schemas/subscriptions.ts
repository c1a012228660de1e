import { z } from '@hono/zod-openapi';
import { BILLING_ERROR_CODES } from '../billing/compose';
import { BILLING_GROUP_TYPES, CancellationReasonSchema, CHANGE_BEHAVIOURS, MoneySchema, PLAN_STATUSES } from './catalogue';
import { AddressSchema, CustomerSummarySchema } from './customers';
import { nullableRef } from './nullable';
import { EmbeddedPaymentMethodSchema } from './payment-methods';
import { ViolationSchema } from './problems';

// Representations of subscriptions, their items and usage, as the API returns them.

/** How many measurement values an item embeds (docs/decisions.md, Response shapes). */
export const ITEM_MEASUREMENT_VALUES = 5;

const PeriodSchema = z.object({
  id: z.string(),
  contractPeriodCount: z.number().int(),
  contractPeriod: z.string().nullable(),
  cancellationPeriod: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const AppliedDiscountSchema = z.object({
  id: z.string(),
  coupon: z.object({ id: z.string(), code: z.string() }),
  status: z.enum(['active', 'expired', 'removed']),
  appliedIntervals: z.number().int(),
  discount: z.object({
    name: z.string(),
    type: z.enum(['percentage', 'fixed_amount']),
    percentage: z.number().int().nullable(),
    fixedAmount: MoneySchema.nullable(),
    frequency: z.enum(['once', 'limited', 'lifetime']),
    frequencyInterval: z.number().int().nullable(),
  }),
});
/** A measurement value as a subscription item embeds it (spec §2.4). */
const EmbeddedMeasurementValueSchema = z
  .object({ id: z.string(), measurement: z.string(), quantity: z.string(), measuredAt: z.string() })
  .openapi('EmbeddedMeasurementValue');

export const SubscriptionItemSchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    parent: z.string().nullable(),
    type: z.enum(['item', 'addon', 'charge']),
    status: z.enum(['active', 'canceled', 'pending', 'terminated']),
    product: z.object({ id: z.string(), name: z.string() }),
    pricePlan: z.object({ id: z.string(), type: z.string(), billingInterval: z.string().nullable(), payInAdvance: z.boolean() }),
    plan: z.string().nullable(),
    quantity: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    furtherInformation: z.string().nullable(),
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    activatedAt: z.string().nullable(),
    inheritedPeriod: z.boolean(),
    measurementValues: z.array(EmbeddedMeasurementValueSchema).openapi({
      description: `The item's latest measurement values, newest first (at most ${ITEM_MEASUREMENT_VALUES}); all of them: GET /subscription-items/{id}/measurement-values`,
    }),
    currentMeasurementValue: nullableRef(EmbeddedMeasurementValueSchema).openapi({ description: 'The newest measurement value; null before the first' }),
    appliedDiscounts: z.array(AppliedDiscountSchema).openapi({ description: "The subscription's discounts whose coupon applies to this item's product and plan" }),
    periods: z.array(PeriodSchema).openapi({ description: "The item's contract periods: an item inherits the subscription's (inheritedPeriod)" }),
    billing: z.object({
      lastBilledAt: z.string().nullable(),
      lastBilledFrom: z.string().nullable(),
      lastBilledTo: z.string().nullable(),
      nextBillingAt: z.string().nullable(),
      billingInterval: z.string().nullable(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('SubscriptionItem');
export type SubscriptionItemResource = z.infer<typeof SubscriptionItemSchema>;

export const SUBSCRIPTION_STATUSES = ['draft', 'active', 'paused', 'cancelled', 'terminated', 'offer'] as const;

// The records a subscription embeds, in the short form it shows them.
const PlanSummarySchema = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  status: z.enum(PLAN_STATUSES),
  changeBehaviour: z.enum(CHANGE_BEHAVIOURS),
  changeApplyBehaviour: z.enum(['immediately', 'end_of_period']).nullable(),
});
const BillingGroupSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(BILLING_GROUP_TYPES),
  customDay: z.number().int().nullable(),
  customMonth: z.number().int().nullable(),
});
/** Why billing failed (docs/decisions.md, Invoices and billing); `billing_error` is anything unforeseen. */
/** The foreseen causes of the composer, and `billing_error` for any other failure (not described). */
export const SUBSCRIPTION_BILLING_ERROR_CODES = [...BILLING_ERROR_CODES, 'billing_error'] as const;
export type SubscriptionBillingErrorCode = (typeof SUBSCRIPTION_BILLING_ERROR_CODES)[number];
const BillingErrorSchema = z
  .object({
    at: z.string().openapi({ description: 'When billing last failed' }),
    code: z.enum(SUBSCRIPTION_BILLING_ERROR_CODES),
    message: z.string(),
  })
  .openapi('SubscriptionBillingError');
const PartnerSummarySchema = z.object({ id: z.string(), name: z.string(), number: z.string(), email: z.string() });

export const SubscriptionSchema = z
  .object({
    id: z.string(),
    externalId: z.string().nullable(),
    number: z.string(),
    name: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    customer: CustomerSummarySchema,
    plan: PlanSummarySchema.nullable(),
    items: z.array(SubscriptionItemSchema),
    billingGroup: BillingGroupSummarySchema.nullable(),
    periods: z.array(PeriodSchema),
    paymentMethod: nullableRef(EmbeddedPaymentMethodSchema).openapi({ description: "The subscription's own method, else the customer's default (the shortened form of spec §2.2)" }),
    defaultPaymentMethod: z.boolean(),
    invoiceAddress: nullableRef(AddressSchema),
    defaultInvoiceAddress: z.boolean(),
    poNumber: z.string().nullable(),
    contractDetails: z.object({ contractStart: z.string(), contractEnd: z.string().nullable() }),
    trialDays: z.number().int(),
    trialEndsOn: z.string().nullable(),
    activatedAt: z.string().nullable(),
    pausedAt: z.string().nullable(),
    nextBillingDate: z.string().nullable(),
    lastBillingAt: z.string().nullable(),
    cancellationDate: z.string().nullable(),
    cancelledAt: z.string().nullable(),
    cancellationReason: nullableRef(CancellationReasonSchema),
    cancellationReasonText: z.string().nullable().openapi({ description: 'The cancellation reason when it was given as free text (not a reason id or code)' }),
    isCancellationPending: z.boolean(),
    nextPossibleCancellationDate: z.array(z.string()),
    appliedDiscounts: z.array(AppliedDiscountSchema),
    partner: PartnerSummarySchema.nullable(),
    lastBillingError: nullableRef(BillingErrorSchema).openapi({ description: 'Why the last attempt to bill the subscription failed; null once billing succeeds again' }),
    // Custom fields are the tenant's own (GET /custom-fields): open by design.
    customFields: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Subscription');
export type SubscriptionResource = z.infer<typeof SubscriptionSchema>;

export const SubscriptionCommentSchema = z
  .object({ id: z.string(), text: z.string(), author: z.string().nullable(), createdAt: z.string() })
  .openapi('SubscriptionComment');
export type SubscriptionComment = z.infer<typeof SubscriptionCommentSchema>;

/** Our money object, with Fynn's formatted `netAmount` beside it (docs/decisions.md, Subscriptions). */
export const EstimatedAmountSchema = z
  .object({
    amount: z.string().openapi({ description: 'Net amount in major units at the currency scale', example: '10.00' }),
    currencyCode: z.string().openapi({ example: 'EUR' }),
    netAmount: z.string().openapi({ description: 'The same amount formatted for display, as Fynn shows it', example: '10.00 €' }),
  })
  .openapi('EstimatedAmount');
export type EstimatedAmount = z.infer<typeof EstimatedAmountSchema>;

export const UsageBatchResultSchema = z
  .object({
    received: z.number().int(),
    accepted: z.number().int(),
    duplicates: z.number().int(),
    rejected: z.array(z.object({ index: z.number().int(), id: z.string().nullable(), violations: z.array(ViolationSchema) })),
  })
  .openapi('UsageBatchResult');
export type UsageBatchResult = z.infer<typeof UsageBatchResultSchema>;

export const MeasurementValueSchema = z
  .object({ id: z.string(), measurement: z.string(), quantity: z.string(), uniqueId: z.string().nullable(), measuredAt: z.string(), receivedAt: z.string() })
  .openapi('MeasurementValue');
export type MeasurementValueResource = z.infer<typeof MeasurementValueSchema>;

export const CurrentMeasurementValueSchema = z
  .object({
    subscriptionItem: z.string(),
    measurement: z.object({ id: z.string(), code: z.string(), aggregationType: z.string(), type: z.string() }),
    quantity: z.string(),
    periodStart: z.string().nullable(),
    periodEnd: z.string().nullable(),
    measuredAt: z.string(),
  })
  .openapi('CurrentMeasurementValue');
export type CurrentMeasurementValue = z.infer<typeof CurrentMeasurementValueSchema>;
