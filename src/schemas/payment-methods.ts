import { z } from '@hono/zod-openapi';
import { nullableRef } from './nullable';

// The payment method as the API shows it (spec §2.2). Secrets never appear here: the IBAN only
// masked, gateway tokens not at all (docs/payment-method-states.md for the statuses).

/** The types a method can be created with; the spec's others (`payaccount`, `wallet`) have no gateway yet. */
export const PAYMENT_METHOD_TYPES = ['sepa_debit', 'card', 'bank_transfer', 'fake_provider'] as const;
const SPEC_TYPES = ['sepa_debit', 'card', 'payaccount', 'bank_transfer', 'wallet', 'fake_provider'] as const;
export const GATEWAY_NAMES = ['wallet', 'sepa_debit', 'card_provider', 'fake_provider', 'payaccount', 'bank_transfer', 'direct_debit_provider', 'testing'] as const;
export const PAYMENT_METHOD_STATUSES = ['active', 'action_required', 'expired', 'revoked', 'gateway_unconfigured'] as const;
export const PAYMENT_METHOD_SOURCES = ['api', 'checkout', 'customerfront', 'add_link'] as const;

export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];
export type PaymentMethodStatus = (typeof PAYMENT_METHOD_STATUSES)[number];

export const SepaMandateSchema = z
  .object({
    mandateReference: z.string(),
    /** The day the payer signed the mandate (YYYY-MM-DD). */
    signingDate: z.string(),
    /** The tenant's creditor identifier (setting `sepa.creditorId`), null until it is set. */
    creditorId: z.string().nullable(),
    type: z.literal('CORE'),
    /** FRST until a debit on the mandate was put into a file, RCUR after. */
    sequenceType: z.enum(['FRST', 'RCUR']),
  })
  .openapi('SepaMandate');

export const CardDetailsSchema = z
  .object({ brand: z.string(), last4: z.string(), expMonth: z.number().int(), expYear: z.number().int(), cardHolder: z.string().nullable() })
  .openapi('CardDetails');

export const SepaDebitDetailsSchema = z
  .object({
    /** Masked: country, check digits and the last four characters. */
    iban: z.string().nullable(),
    bic: z.string().nullable(),
    mandateReference: z.string().nullable(),
    /** YYYY-MM-DD. */
    signingDate: z.string().nullable(),
  })
  .openapi('SepaDebitDetails');

const paymentMethodFields = z.object({
    id: z.string(),
    /** The customer's id. */
    customer: z.string(),
    gatewayName: z.enum(GATEWAY_NAMES),
    type: z.enum(SPEC_TYPES),
    /** The mandate reference of a SEPA method; null for the others (never a gateway token). */
    referenceId: z.string().nullable(),
    default: z.boolean(),
    enabled: z.boolean(),
    status: z.enum(PAYMENT_METHOD_STATUSES),
    source: z.enum(PAYMENT_METHOD_SOURCES),
    name: z.string(),
    data: z.array(z.string()),
    creationDate: z.string(),
    /** End of the card's expiry month (UTC); null for every other type. */
    expirationDate: z.string().nullable(),
    sepaMandate: nullableRef(SepaMandateSchema),
    /** Present when `type` is `card`; null while the card gateway is not configured. */
    card: nullableRef(CardDetailsSchema).optional(),
    /** Present when `type` is `sepa_debit`. */
    sepaDebit: SepaDebitDetailsSchema.optional(),
});

export const PaymentMethodSchema = paymentMethodFields.openapi('PaymentMethod');

/**
 * The shortened form subscriptions embed (spec §2.2: `referenceId` omitted); everything else as the
 * full resource, the IBAN masked the same way.
 */
export const EmbeddedPaymentMethodSchema = paymentMethodFields.omit({ referenceId: true }).openapi('EmbeddedPaymentMethod');
export type EmbeddedPaymentMethod = z.infer<typeof EmbeddedPaymentMethodSchema>;

export type PaymentMethodResource = z.infer<typeof PaymentMethodSchema>;
