import { z } from '@hono/zod-openapi';

// Checkout links (tenant API) and public carts (spec §2.6). Money is a decimal string in major units
// (docs/decisions.md, Foundations); quantities of a cart are whole units.

export const AFTER_CHECKOUT_ACTIONS = ['redirect', 'confirmation_message', 'none'] as const;
export const CART_STATUSES = ['open', 'confirming', 'redirect_to_payment', 'expired', 'completed', 'paid'] as const;

export const CheckoutLinkItemSchema = z
  .object({
    type: z.literal('product'),
    product: z.object({ type: z.literal('product'), id: z.string(), name: z.string(), description: z.string().nullable() }),
    quantity: z.number().int(),
    minQuantity: z.number().int(),
    maxQuantity: z.number().int().nullable(),
    plan: z.object({ id: z.string(), code: z.string(), name: z.string() }).nullable(),
    price: z.object({
      id: z.string(),
      type: z.enum(['recurring', 'one_time', 'metered', 'instant_metered']),
      calculationType: z.enum(['flat_fee', 'per_unit', 'tiered', 'volume', 'stair_step', 'percentage']),
      currencyCode: z.string(),
      price: z.object({ amount: z.string() }).nullable(),
      billingInterval: z.string().nullable(),
    }),
    periods: z.object({ contractPeriod: z.string().nullable(), cancellationPeriod: z.string().nullable() }),
  })
  .openapi('CheckoutLinkItem');

export const CheckoutLinkSchema = z
  .object({
    id: z.string(),
    afterCheckout: z.object({
      url: z.string().nullable(),
      confirmationMessage: z.string().nullable(),
      action: z.enum(AFTER_CHECKOUT_ACTIONS),
      backToProviderUrl: z.string().nullable(),
    }),
    options: z.object({ trialDays: z.number().int(), allowCoupons: z.boolean(), quantityEditable: z.boolean(), forceCompany: z.boolean() }),
    slug: z.string(),
    isEnabled: z.boolean(),
    items: z.array(CheckoutLinkItemSchema),
    /** The hosted checkout page: `/checkout/{tenantSlug}/{slug}` on this API's origin. */
    url: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('CheckoutLink');
export type CheckoutLinkResource = z.infer<typeof CheckoutLinkSchema>;

/** The buyer's invoice address as a cart holds it (an existing address of a logged-in customer has its id). */
export const CartAddressSchema = z
  .object({
    id: z.string().nullable(),
    vatId: z.string().nullable(),
    /** Whether the VAT id was confirmed by the VAT check (reverse charge applies only then). */
    vatIdValid: z.boolean(),
    companyName: z.string().nullable(),
    salutation: z.enum(['Firma', 'Herr', 'Frau']).nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    street: z.string(),
    houseNumber: z.string(),
    zip: z.string(),
    city: z.string(),
    addition: z.string(),
    countryCode: z.string(),
    costCentre: z.string().nullable(),
  })
  .openapi('CartAddress');
export type CartAddress = z.infer<typeof CartAddressSchema>;

export const CartItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    quantity: z.number().int(),
    quantityDetails: z.object({
      aggregationType: z.string(),
      unit: z.string().nullable(),
      description: z.string().nullable(),
      quantityEditable: z.boolean(),
      minQuantity: z.number().int(),
      maxQuantity: z.number().int().nullable(),
    }),
    price: z.object({
      currencyCode: z.string(),
      taxRate: z.string(),
      /** What is due now for the item (after its trial and discount, before tax). */
      totalNetAmount: z.string(),
      type: z.enum(['recurring', 'metered', 'instant_metered', 'one_time']),
      calculationType: z.enum(['flat_fee', 'per_unit', 'tiered', 'volume', 'stair_step', 'percentage']),
      payInAdvance: z.boolean(),
      price: z.object({ amount: z.string().nullable() }),
      recurring: z
        .object({ interval: z.enum(['day', 'week', 'month', 'year']), intervalCount: z.number().int(), trialPeriodDays: z.number().int(), recurringAmount: z.string() })
        .nullable(),
      freeUnits: z.string(),
    }),
    type: z.literal('product'),
    periods: z.object({ contractPeriod: z.string().nullable(), cancellationPeriod: z.string().nullable() }),
  })
  .openapi('CartItem');

export const CartPriceSchema = z
  .object({
    amountDue: z.string(),
    currencyCode: z.string(),
    netAmount: z.string(),
    taxAmount: z.string(),
    taxes: z.array(z.object({ netAmount: z.string(), taxAmount: z.string(), rate: z.string(), category: z.string(), note: z.string().nullable() })),
    discountDetails: z.array(z.object({ code: z.string(), name: z.string(), amount: z.string() })),
  })
  .openapi('CartPrice');

/** Who sells (the tenant's letterhead) and the pages of its own site the buyer may read before ordering. */
export const CartSellerSchema = z
  .object({
    name: z.string(),
    /** The letterhead's address, one line each (street, postcode and city, country). */
    address: z.array(z.string()),
    countryCode: z.string(),
    /** The letterhead logo on this API's origin, or null when the tenant has none. */
    logoUrl: z.string().nullable(),
    termsUrl: z.string().nullable(),
    privacyUrl: z.string().nullable(),
    withdrawalUrl: z.string().nullable(),
    imprintUrl: z.string().nullable(),
  })
  .openapi('CartSeller');

/** What recurs after the first invoice: the amount per interval (gross, as billed today) and the notice period. */
export const CartRenewalSchema = z
  .object({
    interval: z.enum(['day', 'week', 'month', 'year']),
    intervalCount: z.number().int(),
    amount: z.string(),
    netAmount: z.string(),
    currencyCode: z.string(),
    /** The minimum term (`1Y`…) and the notice period (`1M`…), durations as the subscription takes them. */
    contractPeriod: z.string().nullable(),
    cancellationPeriod: z.string().nullable(),
  })
  .openapi('CartRenewal');

/** What a completed cart tells its buyer: the first invoice and where the confirmation went. */
export const CartCompletionSchema = z
  .object({
    invoiceNumber: z.string().nullable(),
    amount: z.string(),
    currencyCode: z.string(),
    paid: z.boolean(),
    email: z.string().nullable(),
  })
  .openapi('CartCompletion');

export const CartSchema = z
  .object({
    id: z.string(),
    status: z.enum(CART_STATUSES),
    /** The customer who owns the cart: the logged-in one, or the one completion created. */
    customer: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    invoiceAddress: CartAddressSchema.nullable(),
    customerPrefill: z.record(z.string(), z.string()),
    /** The payment method completion used (an id), or null. */
    paymentMethod: z.string().nullable(),
    couponCode: z.string().nullable(),
    price: CartPriceSchema,
    items: z.array(CartItemSchema),
    completionDetails: z.array(z.string()).nullable(),
    subscription: z.string().nullable(),
    invoice: z.string().nullable(),
    settings: z.object({
      allowCoupons: z.boolean(),
      forceCompany: z.boolean(),
      quantityEditable: z.boolean(),
      backButton: z.object({ url: z.string(), label: z.string() }).nullable(),
      /** The `newPaymentMethod.type`s confirm takes for this cart (the testing gateway only for a test tenant). */
      paymentMethods: z.array(z.enum(['fake_provider', 'sepa_debit', 'bank_transfer', 'card'])),
    }),
    /** After this instant without a change the cart is gone (404). */
    expiresAt: z.string(),
    plan: z.object({ name: z.string(), description: z.string().nullable() }).nullable(),
    seller: CartSellerSchema.nullable(),
    renewal: CartRenewalSchema.nullable(),
    /** When the buyer accepted the terms, and which (set by confirm when the tenant has terms). */
    termsAcceptance: z.object({ acceptedAt: z.string(), termsUrl: z.string() }).nullable(),
    completion: CartCompletionSchema.nullable(),
  })
  .openapi('Cart');
export type PublicCart = z.infer<typeof CartSchema>;

/** A cart in the tenant's list (`GET /checkout/carts`). */
export const CartSummarySchema = z
  .object({
    id: z.string(),
    status: z.enum(CART_STATUSES),
    checkoutLink: z.string(),
    customer: z.string().nullable(),
    email: z.string().nullable(),
    subscription: z.string().nullable(),
    invoice: z.string().nullable(),
    amountDue: z.string(),
    currencyCode: z.string(),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    termsAcceptance: z.object({ acceptedAt: z.string(), termsUrl: z.string() }).nullable(),
  })
  .openapi('CartSummary');
export type CartSummary = z.infer<typeof CartSummarySchema>;

/** A new invoice address given at checkout (Fynn's `newInvoiceAddress`). */
export interface NewInvoiceAddressInput {
  companyName?: string | null;
  salutation?: 'Firma' | 'Herr' | 'Frau' | null;
  firstName?: string | null;
  lastName?: string | null;
  vatId?: string | null;
  street?: string | null;
  houseNumber?: string | null;
  zip?: string | null;
  city?: string | null;
  addition?: string | null;
  countryCode?: string | null;
  costCentre?: string | null;
}

/** A new payment method given at checkout (Fynn's `newPaymentMethod`). */
export type NewPaymentMethodInput =
  | { type: 'fake_provider'; token?: string | null }
  | { type: 'sepa_debit'; sepaDebit: { iban: string; bic?: string | null; accountHolder: string } }
  | { type: 'bank_transfer' }
  | { type: 'card'; token: string };

/** Fynn's confirm body: e-mail and phone, an address (existing or new), a payment method (existing or new). */
export interface ConfirmCartInput {
  email?: string | null;
  phone?: string | null;
  invoiceAddressId?: string | null;
  newInvoiceAddress?: NewInvoiceAddressInput | null;
  paymentMethodId?: string | null;
  newPaymentMethod?: NewPaymentMethodInput | null;
  /** The buyer accepted the tenant's terms (required when the tenant has set `checkout.termsUrl`). */
  acceptTerms?: boolean | null;
}

export const ConfirmCartResultSchema = z
  .object({
    action: z.enum(['redirect', 'none', 'confirmation_message', 'otp_required']),
    confirmationMessage: z.string().nullable(),
    redirectUrl: z.string().nullable(),
    status: z.enum(CART_STATUSES),
  })
  .openapi('CartConfirmationResult');
export type ConfirmCartResult = z.infer<typeof ConfirmCartResultSchema>;

/** What the card gateway's client needs to collect a card (Fynn's prepare-stripe answer). */
export const CardPreparationSchema = z
  .object({
    gateway: z.string(),
    publishableKey: z.string().nullable(),
    clientSecret: z.string().nullable(),
    paymentIntentId: z.string().nullable(),
    setupIntentId: z.string().nullable(),
  })
  .openapi('CartCardPreparation');
export type CardPreparation = z.infer<typeof CardPreparationSchema>;
