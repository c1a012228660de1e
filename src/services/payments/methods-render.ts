import type { paymentMethods } from '../../db/schema';
import type { PaymentMethodResource, PaymentMethodStatus } from '../../schemas/payment-methods';
import { maskIban } from '../documents/settings';

// How a stored payment method is shown (spec §2.2), and its state machine
// (docs/payment-method-states.md). Rendering reads the full IBAN only to mask it.

export type PaymentMethodRow = typeof paymentMethods.$inferSelect;

/** What `details` holds per type; the secret parts live in their own columns (`iban`, `gatewayToken`). */
export interface CardDetails {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  cardHolder: string | null;
}
export interface SepaDetails {
  /** Masked. */
  iban: string;
  bic: string | null;
  accountHolder: string;
}

/**
 * Who may move a method where. `revoked` is final: a revoked mandate or card never comes back (the
 * customer adds a new one). `expired` only leaves for `revoked`. See docs/payment-method-states.md.
 */
export const PAYMENT_METHOD_TRANSITIONS: Record<PaymentMethodStatus, readonly PaymentMethodStatus[]> = {
  active: ['action_required', 'expired', 'revoked'],
  action_required: ['active', 'expired', 'revoked'],
  expired: ['revoked'],
  // Once the tenant stores the gateway's key, its waiting cards are bound and become active.
  gateway_unconfigured: ['active', 'revoked'],
  revoked: [],
};

export function canTransition(from: string, to: PaymentMethodStatus): boolean {
  return (PAYMENT_METHOD_TRANSITIONS[from as PaymentMethodStatus] ?? []).includes(to);
}

/** Statuses whose methods can no longer be charged, so they cannot be the default. */
export const UNUSABLE_STATUSES: readonly string[] = ['revoked', 'expired'];

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  cartes_bancaires: 'Cartes Bancaires',
};

function brandLabel(brand: string): string {
  return BRANDS[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

/** The name a method gets when the client gives none: "SEPA DE89 …3000", "Visa •••• 4242". */
export function defaultMethodName(row: Pick<PaymentMethodRow, 'type' | 'details' | 'iban'>): string {
  switch (row.type) {
    case 'sepa_debit': {
      const iban = row.iban ?? (row.details as Partial<SepaDetails>).iban ?? '';
      return iban ? `SEPA ${iban.slice(0, 4)} …${iban.slice(-4)}` : 'SEPA direct debit';
    }
    case 'card': {
      const card = row.details as Partial<CardDetails>;
      return card.brand && card.last4 ? `${brandLabel(card.brand)} •••• ${card.last4}` : 'Card';
    }
    case 'bank_transfer':
      return 'Bank transfer';
    default:
      return 'Testing';
  }
}

function cardOf(row: PaymentMethodRow): CardDetails | null {
  const d = row.details as Partial<CardDetails>;
  if (!d.brand || !d.last4 || d.expMonth === undefined || d.expYear === undefined) return null;
  return { brand: d.brand, last4: d.last4, expMonth: d.expMonth, expYear: d.expYear, cardHolder: d.cardHolder ?? null };
}

/** The method as the API shows it; `creditorId` is the tenant's setting `sepa.creditorId`. */
export function renderPaymentMethod(row: PaymentMethodRow, creditorId: string | null): PaymentMethodResource {
  const sepa = row.details as Partial<SepaDetails>;
  const mandate =
    row.type === 'sepa_debit' && row.mandateReference && row.mandateSignedAt
      ? {
          mandateReference: row.mandateReference,
          signingDate: row.mandateSignedAt,
          creditorId,
          type: 'CORE' as const,
          sequenceType: row.mandateFirstUsedAt ? ('RCUR' as const) : ('FRST' as const),
        }
      : null;
  return {
    id: row.id,
    customer: row.customerId,
    gatewayName: row.gatewayName as PaymentMethodResource['gatewayName'],
    type: row.type as PaymentMethodResource['type'],
    referenceId: row.referenceId,
    default: row.isDefault,
    enabled: row.enabled,
    status: row.status as PaymentMethodResource['status'],
    source: row.source as PaymentMethodResource['source'],
    name: row.name ?? defaultMethodName(row),
    data: row.data,
    creationDate: row.createdAt,
    expirationDate: row.type === 'card' ? row.expiresAt : null,
    sepaMandate: mandate,
    ...(row.type === 'card' ? { card: cardOf(row) } : {}),
    ...(row.type === 'sepa_debit'
      ? {
          sepaDebit: {
            iban: row.iban ? maskIban(row.iban) : (sepa.iban ?? null),
            bic: sepa.bic ?? null,
            mandateReference: row.mandateReference,
            signingDate: row.mandateSignedAt,
          },
        }
      : {}),
  };
}
