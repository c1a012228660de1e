// VAT rate and category of a supply (docs/decisions.md, Foundations and Catalogue). Pure: no I/O, no clock; the date is an argument.
// Categories are the EN16931 / UNCL5305 codes: S standard, Z zero rated, E exempt, AE reverse
// charge, K intra-Community supply, G export outside the EU.
import { EU_VAT_RATES, type EuVatPeriod } from '../reference/eu-vat-rates';
import { COUNTRY_CODES, EU_COUNTRY_CODES } from '../reference/iso';
import { checkDecimal, Dec, MAX_UNIT_PRICE_DECIMALS, toDecimalString, type DecimalProblem } from './money';

export type TaxGroupType = 'standard' | 'reduced';
export type ReverseChargeType = 'REVERSE_CHARGE_DEACTIVATED' | 'REVERSE_CHARGE' | 'REVERSE_CHARGE_INTRA_EU_SUPPLY';
export type TaxCategory = 'S' | 'AE' | 'K' | 'G' | 'E' | 'Z';

/** Legal notes printed on documents (EN16931 BT-120, the VAT exemption reason). */
export const LEGAL_NOTES = {
  reverseCharge: 'Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC)',
  intraEuSupply: 'Tax-exempt intra-Community supply of goods (Art. 138 Directive 2006/112/EC)',
  exportOfServices: 'Not subject to EU VAT: place of supply outside the EU',
  exportOfGoods: 'Tax-exempt export of goods outside the EU (Art. 146 Directive 2006/112/EC)',
  exempt: 'Tax exempt: the customer is exempt from VAT',
} as const;

/**
 * A tenant's own rate that replaces the EU table (or supplies a rate for a country outside it).
 * `rate` is percent as a decimal string (0..100). `validFrom` (ISO date, inclusive; null/absent =
 * always) lets a tenant record rate changes: of the overrides for a country and type that are valid
 * at the date, the one with the latest `validFrom` wins (on a tie, the first listed). `taxId` is
 * echoed in the result so the caller knows which tenant tax applied.
 */
export interface TaxRateOverride {
  country: string;
  type: TaxGroupType;
  rate: string;
  validFrom?: string | null;
  taxId?: string;
}

export interface ResolveTaxInput {
  taxGroup: { type: TaxGroupType; reverseChargeType: ReverseChargeType };
  /** ISO 3166 codes (Greece is GR, never EL). */
  sellerCountry: string;
  customerCountry: string;
  /** The customer's VAT id was validated (VIES) as valid. */
  vatIdValid: boolean;
  /** The customer buys as a business. Reverse charge needs isBusiness and vatIdValid. */
  isBusiness: boolean;
  taxExempt: 'auto' | 'exempt';
  /** The tax point; a Date counts by its UTC calendar day, a string must be an ISO date (YYYY-MM-DD). */
  date: Date | string;
  overrides?: readonly TaxRateOverride[];
}

export interface TaxResolution {
  /** Percent as a decimal string ("19", "25.5", "0"). */
  rate: string;
  category: TaxCategory;
  /** Exemption reason for the document; null for S and Z. */
  legalNote: string | null;
  /** For S/Z the country whose rate applies; for E, AE, K and G the customer's country. */
  country: string;
  /** `taxId` of the tenant override that supplied the rate, null when it came from the EU table or the rate is 0 by rule. */
  taxId: string | null;
}

/** Thrown when a standard-rated supply needs a rate for a country with neither EU data nor an override. */
export class TaxRateUnavailableError extends RangeError {
  constructor(
    readonly country: string,
    readonly type: TaxGroupType,
  ) {
    super(`No ${type} VAT rate known for ${country}: it is not an EU member state and the tenant has no tax for it.`);
    this.name = 'TaxRateUnavailableError';
  }
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function taxDay(date: Date | string): string {
  if (typeof date === 'string') {
    const m = ISO_DATE.exec(date);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[3]) > 31)
      throw new RangeError(`Expected an ISO date (YYYY-MM-DD), got ${JSON.stringify(date)}.`);
    return date;
  }
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new RangeError('Expected a valid Date.');
  return date.toISOString().slice(0, 10);
}

function checkCountry(code: string, field: string): void {
  if (code === 'EL') throw new RangeError(`${field}: use GR for Greece; EL is only its VAT-number prefix.`);
  if (!COUNTRY_CODES.has(code)) throw new RangeError(`${field}: unknown ISO 3166 country code ${JSON.stringify(code)}.`);
}

function periodAt(country: string, day: string): EuVatPeriod | null {
  const periods = EU_VAT_RATES[country];
  if (!periods) return null;
  return periods.find((p) => p.effectiveFrom <= day) ?? null; // newest first
}

/** A tax rate is valid when it is a plain decimal string from 0 to 100 with at most 10 decimals; returns the problem or null. */
export function checkTaxRate(rate: unknown): DecimalProblem | null {
  const p = checkDecimal(rate, { maxDecimals: MAX_UNIT_PRICE_DECIMALS, allowNegative: false, maxIntegerDigits: 3 });
  if (p) return p;
  if (new Dec(rate as string).greaterThan(100)) return { code: 'too_large', message: 'Must be between 0 and 100.' };
  return null;
}

/** EU table rate of a member state valid on `date` (percent); reduced falls back to standard where a state has no reduced rate (DK). */
export function vatRate(countryCode: string, type: TaxGroupType, date: Date | string): string {
  checkCountry(countryCode, 'countryCode');
  if (type !== 'standard' && type !== 'reduced') throw new RangeError(`Unknown tax group type ${JSON.stringify(type)}.`);
  const period = periodAt(countryCode, taxDay(date));
  if (!period) throw new TaxRateUnavailableError(countryCode, type);
  return type === 'reduced' ? (period.reduced ?? period.standard) : period.standard;
}

/** The rate for a country and type on a day: the tenant's override if one is valid, else the EU table, else null. */
function rateFor(country: string, type: TaxGroupType, day: string, overrides: readonly TaxRateOverride[]): { rate: string; taxId: string | null } | null {
  let best: TaxRateOverride | null = null;
  for (const o of overrides) {
    if (o.country !== country || o.type !== type) continue;
    const from = o.validFrom ?? '0000-01-01';
    if (from > day) continue;
    if (best === null || from > (best.validFrom ?? '0000-01-01')) best = o;
  }
  if (best) return { rate: toDecimalString(best.rate), taxId: best.taxId ?? null };
  if (!EU_VAT_RATES[country]) return null;
  return { rate: vatRate(country, type, day), taxId: null };
}

/**
 * Resolves the VAT of a supply, first rule that matches: exempt customer → E 0 %; same country →
 * S at that country's rate; customer outside the EU → G 0 % (export); EU customer in another
 * country with isBusiness and a valid VAT id, tax group not REVERSE_CHARGE_DEACTIVATED → AE 0 %
 * (K for REVERSE_CHARGE_INTRA_EU_SUPPLY from an EU seller); otherwise → S at the customer
 * country's rate (OSS). Any S whose rate is 0 becomes Z.
 */
export function resolveTax(input: ResolveTaxInput): TaxResolution {
  const { taxGroup, sellerCountry, customerCountry } = input;
  checkCountry(sellerCountry, 'sellerCountry');
  checkCountry(customerCountry, 'customerCountry');
  if (taxGroup.type !== 'standard' && taxGroup.type !== 'reduced') throw new RangeError(`Unknown tax group type ${JSON.stringify(taxGroup.type)}.`);
  if (!['REVERSE_CHARGE_DEACTIVATED', 'REVERSE_CHARGE', 'REVERSE_CHARGE_INTRA_EU_SUPPLY'].includes(taxGroup.reverseChargeType))
    throw new RangeError(`Unknown reverse charge type ${JSON.stringify(taxGroup.reverseChargeType)}.`);
  const overrides = input.overrides ?? [];
  overrides.forEach((o, i) => {
    checkCountry(o.country, `overrides[${i}].country`);
    const p = checkTaxRate(o.rate);
    if (p) throw new RangeError(`overrides[${i}].rate: ${p.message}`);
    if (o.validFrom !== undefined && o.validFrom !== null) taxDay(o.validFrom);
  });
  const day = taxDay(input.date);
  const goods = taxGroup.reverseChargeType === 'REVERSE_CHARGE_INTRA_EU_SUPPLY';

  const zero = (category: TaxCategory, legalNote: string): TaxResolution => ({ rate: '0', category, legalNote, country: customerCountry, taxId: null });
  const standard = (country: string): TaxResolution => {
    const found = rateFor(country, taxGroup.type, day, overrides);
    if (!found) throw new TaxRateUnavailableError(country, taxGroup.type);
    const category: TaxCategory = new Dec(found.rate).isZero() ? 'Z' : 'S';
    return { rate: found.rate, category, legalNote: null, country, taxId: found.taxId };
  };

  if (input.taxExempt === 'exempt') return zero('E', LEGAL_NOTES.exempt);
  if (sellerCountry === customerCountry) return standard(sellerCountry);
  if (!EU_COUNTRY_CODES.has(customerCountry)) return zero('G', goods ? LEGAL_NOTES.exportOfGoods : LEGAL_NOTES.exportOfServices);
  if (input.isBusiness && input.vatIdValid && taxGroup.reverseChargeType !== 'REVERSE_CHARGE_DEACTIVATED') {
    if (goods && EU_COUNTRY_CODES.has(sellerCountry)) return zero('K', LEGAL_NOTES.intraEuSupply);
    return zero('AE', LEGAL_NOTES.reverseCharge);
  }
  return standard(customerCountry);
}
