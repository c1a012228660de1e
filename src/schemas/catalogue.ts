import { z } from '@hono/zod-openapi';

// Representations of the catalogue records, as the API returns them. Routes declare them as their
// responses and the services' render functions return `z.infer` of them, so the two cannot drift.

export const UnitSchema = z
  .object({ id: z.string(), name: z.string(), code: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('Unit');
export type UnitResource = z.infer<typeof UnitSchema>;

export const CostCentreSchema = z
  .object({ id: z.string(), name: z.string(), code: z.string(), type: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CostCentre');
export type CostCentreResource = z.infer<typeof CostCentreSchema>;

export const CancellationReasonSchema = z
  .object({ id: z.string(), code: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CancellationReason');
export type CancellationReasonResource = z.infer<typeof CancellationReasonSchema>;

export const ProductFamilySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    products: z.array(z.object({ id: z.string(), name: z.string(), number: z.string().nullable() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ProductFamily');
export type ProductFamilyResource = z.infer<typeof ProductFamilySchema>;

export const AGGREGATION_TYPES = ['count', 'count_unique', 'max', 'sum', 'last_value', 'average'] as const;
export const MEASUREMENT_TYPES = ['instant_metered', 'metered', 'recurring'] as const;

export const MeasurementSchema = z
  .object({
    id: z.string(),
    unit: UnitSchema.partial().extend({ id: z.string() }),
    code: z.string(),
    description: z.string().nullable(),
    fairBilling: z.boolean(),
    aggregationType: z.enum(AGGREGATION_TYPES),
    type: z.enum(MEASUREMENT_TYPES),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Measurement');
export type MeasurementResource = z.infer<typeof MeasurementSchema>;

export const REVERSE_CHARGE_TYPES = ['REVERSE_CHARGE_DEACTIVATED', 'REVERSE_CHARGE', 'REVERSE_CHARGE_INTRA_EU_SUPPLY'] as const;

export const BILLING_GROUP_TYPES = ['start_of_month', 'end_of_month', 'start_of_year', 'end_of_year', 'custom'] as const;

export const BillingGroupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(BILLING_GROUP_TYPES),
    customDay: z.number().int().nullable(),
    customMonth: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('BillingGroup');
export type BillingGroupResource = z.infer<typeof BillingGroupSchema>;

// A product embeds the records it refers to. The event of a change that moved a reference is written
// before the new record can be read back, so there the embed is `{id}` only; hence the optional fields.
const EmbeddedMeasurementSchema = z.object({
  id: z.string(),
  code: z.string().optional(),
  description: z.string().nullable().optional(),
  aggregationType: z.enum(AGGREGATION_TYPES).optional(),
  type: z.enum(MEASUREMENT_TYPES).optional(),
  fairBilling: z.boolean().optional(),
  unit: z.object({ id: z.string(), name: z.string(), code: z.string() }).optional(),
});
const EmbeddedTaxGroupSchema = z.object({
  id: z.string(),
  internalDescription: z.string().nullable().optional(),
  reverseChargeType: z.enum(REVERSE_CHARGE_TYPES).optional(),
  type: z.enum(['standard', 'reduced']).optional(),
});
const EmbeddedCostCentreSchema = CostCentreSchema.partial().extend({ id: z.string() });

export const ProductSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    internalName: z.string().nullable(),
    number: z.string().nullable(),
    type: z.enum(['product', 'charge', 'plan']),
    productFamilies: z.array(z.object({ id: z.string(), name: z.string().optional() })),
    measurement: EmbeddedMeasurementSchema,
    taxGroup: EmbeddedTaxGroupSchema,
    invoiceVisibility: z.enum(['always', 'only_if_charged']),
    costCentre: EmbeddedCostCentreSchema.nullable(),
    isArchived: z.boolean(),
    customFields: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Product');
export type ProductResource = z.infer<typeof ProductSchema>;

export const CALCULATION_TYPES = ['flat_fee', 'per_unit', 'tiered', 'volume', 'stair_step', 'percentage'] as const;
export const PRICE_PLAN_TYPES = ['recurring', 'one_time', 'metered', 'instant_metered'] as const;

export const PricePlanSchema = z
  .object({
    id: z.string(),
    product: z.string(),
    internalName: z.string().nullable(),
    status: z.enum(['active', 'inactive', 'archived']),
    type: z.enum(PRICE_PLAN_TYPES),
    calculationType: z.enum(CALCULATION_TYPES),
    currencyCode: z.string(),
    price: z.object({ amount: z.string(), currencyCode: z.string(), createdAt: z.string(), updatedAt: z.string(), tenantId: z.string() }).nullable(),
    percentage: z.string().nullable(),
    tiers: z.array(z.object({ upTo: z.string().nullable(), unitPrice: z.string(), flatPrice: z.string() })).nullable(),
    freeUnits: z.string(),
    billingInterval: z.string().nullable(),
    showPricePerInterval: z.string().nullable(),
    applyTrial: z.boolean(),
    payInAdvance: z.boolean(),
    proRata: z.boolean(),
    custom: z.boolean(),
    customer: z.string().nullable(),
    salesChannel: z.string().nullable(),
    charge: z.string().nullable().openapi({ description: 'Of a one-time price: the charge (its product) it prices; null otherwise' }),
    productSetOption: z.string().nullable().openapi({ description: 'The product set option the price belongs to; always null (no product sets)' }),
    inUse: z.boolean(),
    checkoutLinkIds: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('PricePlan');
export type PricePlanResource = z.infer<typeof PricePlanSchema>;

export const PLAN_STATUSES = ['draft', 'active', 'inactive', 'archived'] as const;
export const CHANGE_BEHAVIOURS = ['upgradeable', 'downgradeable', 'upgradeable_and_downgradeable', 'not_changeable'] as const;

export const PlanSchema = z
  .object({
    id: z.string(),
    family: z.string(),
    code: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    originProduct: z.string().nullable(),
    allowCheckout: z.boolean(),
    status: z.enum(PLAN_STATUSES),
    changeBehaviour: z.enum(CHANGE_BEHAVIOURS),
    changeApplyBehaviour: z.enum(['immediately', 'end_of_period']).nullable(),
    contractPeriod: z.string().nullable(),
    cancellationPeriod: z.string().nullable(),
    items: z.array(z.object({ product: z.string(), pricePlan: z.string(), quantity: z.string() })),
    addons: z.array(z.object({ product: z.string(), pricePlan: z.string(), minQuantity: z.string(), maxQuantity: z.string().nullable() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Plan');
export type PlanResource = z.infer<typeof PlanSchema>;

export const MoneySchema = z.object({ amount: z.string(), currencyCode: z.string() });

export const CouponSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    type: z.enum(['percentage', 'fixed_amount']),
    percentage: z.number().int().nullable(),
    fixedAmount: MoneySchema.nullable(),
    frequency: z.enum(['once', 'limited', 'lifetime']),
    frequencyInterval: z.number().int().nullable(),
    maxRedemptions: z.number().int().nullable(),
    maxRedemptionsPerCustomer: z.number().int().nullable(),
    expiresAt: z.string().nullable(),
    limitedToPlans: z.array(z.string()),
    excludedFromPlans: z.array(z.string()),
    limitedToProducts: z.array(z.string()),
    excludedFromProducts: z.array(z.string()),
    isEnabled: z.boolean(),
    reedemptions: z.boolean().openapi({ description: 'True once a customer redeemed the coupon (spelling as in the interface spec)' }),
    redemptionCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Coupon');
export type CouponResource = z.infer<typeof CouponSchema>;

export const TaxGroupSchema = z
  .object({
    id: z.string(),
    internalDescription: z.string().nullable(),
    reverseChargeType: z.enum(REVERSE_CHARGE_TYPES),
    type: z.enum(['standard', 'reduced']),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('TaxGroup');
export type TaxGroupResource = z.infer<typeof TaxGroupSchema>;

export const TaxSchema = z
  .object({
    id: z.string(),
    taxGroup: z.string(),
    countryCode: z.string(),
    validFrom: z.string(),
    rate: z.number().min(0).max(100).openapi({ description: 'Percent, 0 to 100 (spec §2.3: a number)', example: 19 }),
    code: z.string(),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Tax');
export type TaxResource = z.infer<typeof TaxSchema>;

export const TaxResolutionSchema = z
  .object({
    rate: z.string(),
    category: z.enum(['S', 'AE', 'K', 'G', 'E', 'Z']),
    legalNote: z.string().nullable(),
    country: z.string(),
    taxId: z.string().nullable(),
    sellerCountry: z.string(),
    date: z.string(),
  })
  .openapi('TaxResolution');
export type TaxResolution = z.infer<typeof TaxResolutionSchema>;
