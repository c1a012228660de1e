import type { ChargeOutcome, PaymentGateway, RefundOutcome } from './port';

/**
 * The `testing` and `fake_provider` gateways: deterministic outcomes for tests and demos, chosen by
 * the method's token, as Stripe's test cards are (docs/decisions.md, Payments, for the list).
 * A charge's outcome is encoded in its referenceId, so `chargeStatus` answers the same later.
 */
export const TESTING_TOKENS = {
  testing_succeeds: 'Every charge succeeds at once (the default when no token is given).',
  testing_declined: 'Every charge fails with card_declined (retryable).',
  testing_insufficient_funds: 'Every charge fails with insufficient_funds (retryable).',
  testing_requires_action: 'Every charge needs the payer to act (action_required).',
  testing_fails_later: 'Charges are accepted as processing and fail when their status is next asked.',
  testing_succeeds_later: 'Charges are accepted as processing and succeed when their status is next asked.',
  testing_refund_fails: 'Charges succeed; refunds of them fail.',
} as const;

export type TestingToken = keyof typeof TESTING_TOKENS;

export function isTestingToken(token: string): token is TestingToken {
  return Object.hasOwn(TESTING_TOKENS, token);
}

function outcomeOf(token: TestingToken, referenceId: string, later: boolean): ChargeOutcome {
  switch (token) {
    case 'testing_declined':
      return { status: 'failed', referenceId, reason: 'card_declined', retryable: true };
    case 'testing_insufficient_funds':
      return { status: 'failed', referenceId, reason: 'insufficient_funds', retryable: true };
    case 'testing_requires_action':
      return { status: 'action_required', referenceId, reason: 'authentication_required' };
    case 'testing_fails_later':
      return later ? { status: 'failed', referenceId, reason: 'card_declined', retryable: true } : { status: 'processing', referenceId };
    case 'testing_succeeds_later':
      return later ? { status: 'succeeded', referenceId } : { status: 'processing', referenceId };
    default:
      return { status: 'succeeded', referenceId };
  }
}

export function testingGateway(name: 'testing' | 'fake_provider'): PaymentGateway {
  return {
    name,
    async charge(req) {
      const token: TestingToken = req.method.token && isTestingToken(req.method.token) ? req.method.token : 'testing_succeeds';
      // The idempotency key makes the reference: the same request answers the same charge.
      return outcomeOf(token, `${name}_ch_${token}_${req.idempotencyKey}`, false);
    },
    async chargeStatus(referenceId) {
      // Longest first: `testing_succeeds_later_…` also starts with `testing_succeeds_`.
      const token = Object.keys(TESTING_TOKENS)
        .sort((a, b) => b.length - a.length)
        .find((t) => referenceId.startsWith(`${name}_ch_${t}_`)) as TestingToken | undefined;
      return outcomeOf(token ?? 'testing_succeeds', referenceId, true);
    },
    async refund(req): Promise<RefundOutcome> {
      const referenceId = `${name}_re_${req.idempotencyKey}`;
      if (req.chargeReferenceId.startsWith(`${name}_ch_testing_refund_fails_`)) return { status: 'failed', referenceId, reason: 'refund_declined' };
      return { status: 'succeeded', referenceId };
    },
  };
}
