import { currencyScale, Dec, formatDecimal, parseDecimal } from '../../../billing/money';

/**
 * Amounts as Stripe's API takes them: an integer in the currency's smallest unit as Stripe counts
 * it (docs.stripe.com/currencies), which is not always ISO 4217's: zero-decimal currencies take
 * whole units (JPY 500 → 500), three-decimal ones thousandths whose last digit must be 0
 * (KWD 5.120 → 5120), and ISK stays two-decimal in the API but only whole krónur are charged
 * (ISK 5 → 500). Converted exactly from the decimal string; an amount Stripe cannot express is an
 * error, never rounded.
 */
const ZERO_DECIMAL = new Set('BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' '));
const THREE_DECIMAL = new Set('BHD JOD KWD OMR TND'.split(' '));
/** Stripe's limit for `amount` (eight digits: 999,999.99 in a two-decimal currency). */
const MAX_STRIPE_AMOUNT = 99_999_999;

/** An amount Stripe cannot charge (more decimals than it takes, zero, negative, too large). */
export class StripeAmountError extends RangeError {
  override name = 'StripeAmountError';
}

/** Decimals of Stripe's `amount` unit for a currency (ISO code, any case). */
export function stripeExponent(currencyCode: string): number {
  const code = currencyCode.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/** "119.00" EUR → 11900; "1000" JPY → 1000; throws StripeAmountError when Stripe cannot take it. */
export function toStripeAmount(amount: string, currencyCode: string): number {
  const code = currencyCode.toUpperCase();
  const exponent = stripeExponent(code);
  const minor = parseDecimal(amount, { allowNegative: false }).times(new Dec(10).pow(exponent));
  if (!minor.isInteger()) throw new StripeAmountError(`${amount} ${code} has more decimals than Stripe takes for ${code} (${exponent}).`);
  if (THREE_DECIMAL.has(code) && !minor.mod(10).isZero()) throw new StripeAmountError(`Stripe charges ${code} in steps of 0.010 (the last of three decimals must be 0); ${amount} is not one.`);
  if (code === 'ISK' && !minor.mod(100).isZero()) throw new StripeAmountError(`Stripe charges ISK in whole krónur only; ${amount} is not one.`);
  if (minor.lte(0)) throw new StripeAmountError('Stripe charges and refunds positive amounts only.');
  if (minor.gt(MAX_STRIPE_AMOUNT)) throw new StripeAmountError(`${amount} ${code} exceeds Stripe's largest amount (${MAX_STRIPE_AMOUNT} in its smallest unit).`);
  return minor.toNumber();
}

/** Stripe's integer amount back as a decimal string in our scale for the currency (ISO 4217): 59 EUR → "0.59", 30 JPY → "30". */
export function fromStripeAmount(amount: number, currencyCode: string): string {
  const code = currencyCode.toUpperCase();
  return formatDecimal(new Dec(amount).div(new Dec(10).pow(stripeExponent(code))), currencyScale(code));
}
