// The SEPA rules the XSDs cannot (or only partly) express, applied before a file is written: the
// EPC's Latin character set, identifier patterns, IBAN/BIC and creditor-identifier check digits,
// amount limits. A `Checker` collects every broken rule so one error names them all.
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { checkDecimal, Dec, formatDecimal } from '../../billing/money';
import { mod97CheckDigits } from '../../lib/mod97';
import type { SepaViolation } from './model';

/** Schema lengths (Max70Text for names, Max140Text for unstructured remittance, Max35Text ids). */
export const MAX_NAME = 70;
export const MAX_REMITTANCE = 140;
export const MAX_ID = 35;
export const MAX_AMOUNT = new Dec('999999999.99');

// EPC SEPA implementation guidelines, "Character set": Latin letters, digits and / - ? : ( ) . , ' + space.
const SEPA_CHAR = /^[A-Za-z0-9/\-?:().,'+ ]$/;
// Letters whose Unicode decomposition does not give the spelling German (and Nordic) banks expect.
const TRANSLITERATIONS: Record<string, string> = {
  ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', ß: 'ss', ẞ: 'SS',
  æ: 'ae', Æ: 'AE', ø: 'oe', Ø: 'Oe', œ: 'oe', Œ: 'OE', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', þ: 'th', Þ: 'Th',
  '&': '+', _: '-', '"': "'", '‘': "'", '’': "'", '´': "'", '`': "'", '–': '-', '—': '-', '€': 'EUR',
};

/** Text in the SEPA Latin set: transliterated, other characters as spaces, whitespace collapsed, cut to `max`. */
export function sepaText(input: string, max: number): string {
  let out = '';
  for (const ch of input) {
    const known = TRANSLITERATIONS[ch];
    if (known !== undefined) {
      out += known;
      continue;
    }
    // NFKD splits é into e + accent and ﬁ into fi; what is still outside the set becomes a space.
    for (const part of ch.normalize('NFKD')) if (!/\p{M}/u.test(part)) out += SEPA_CHAR.test(part) ? part : ' ';
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, max).trimEnd();
}

// EPC: ids use the character set without space, must not start or end with "/" nor contain "//".
const SEPA_ID = /^(?!\/)(?!.*\/\/)[A-Za-z0-9/\-?:().,'+]{1,35}(?<!\/)$/;
// The BIC pattern of the 2009 schemas (stricter than the 2019 BICFI one, so one check fits both).
const BIC_PATTERN = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Why a SEPA creditor identifier is not one, or null: country, two check digits, a free three-
 * character business code, then the national identifier. The business code is left out of the
 * check (EPC262-08): MOD 97-10 over national id + country code + "00".
 */
export function creditorIdProblem(id: string): string | null {
  const m = /^([A-Z]{2})([0-9]{2})([A-Z0-9]{3})([A-Z0-9]{1,28})$/.exec(id);
  if (!m) return 'Must be a SEPA creditor identifier: country code, 2 check digits, 3-character business code, national identifier (e.g. DE98ZZZ09999999999).';
  const expected = mod97CheckDigits(`${m[4]}${m[1]}`);
  return expected === m[2] ? null : `The check digits do not match (expected ${expected}).`;
}

/** Collects violations while turning raw input into what the writers print. */
export class Checker {
  readonly violations: SepaViolation[] = [];

  add(path: string, rule: string, message: string): void {
    this.violations.push({ path, rule, message });
  }

  text(path: string, value: string | undefined, max: number, required: boolean): string | undefined {
    const cleaned = sepaText(value ?? '', max);
    if (cleaned === '' && required) this.add(path, 'text_empty', 'Must contain at least one letter or digit of the SEPA character set.');
    return cleaned === '' ? undefined : cleaned;
  }

  id(path: string, value: string): string {
    if (!SEPA_ID.test(value))
      this.add(path, 'invalid_id', "Must be 1–35 characters of A–Z a–z 0–9 / - ? : ( ) . , ' + without spaces, not starting or ending with \"/\" nor containing \"//\".");
    return value;
  }

  iban(path: string, value: string): string {
    const iban = electronicFormatIBAN(value) ?? '';
    if (!isValidIBAN(iban)) this.add(path, 'invalid_iban', 'Must be a valid IBAN.');
    return iban;
  }

  bic(path: string, value: string | undefined): string | undefined {
    if (value === undefined || value.trim() === '') return undefined;
    const bic = value.replace(/\s+/g, '').toUpperCase();
    if (!isValidBIC(bic) || !BIC_PATTERN.test(bic)) this.add(path, 'invalid_bic', 'Must be a valid BIC (8 or 11 characters).');
    return bic;
  }

  creditorId(path: string, value: string): string {
    const id = value.replace(/\s+/g, '').toUpperCase();
    const problem = creditorIdProblem(id);
    if (problem) this.add(path, 'invalid_creditor_id', problem);
    return id;
  }

  /** The amount with exactly 2 decimals; never rounded, since changing a collected amount is not ours to decide. */
  amount(path: string, value: string): Dec {
    const problem = checkDecimal(value, { maxDecimals: 2, allowNegative: false, maxIntegerDigits: 9 });
    if (problem) {
      const rule = { invalid_decimal: 'invalid_amount', too_many_decimals: 'amount_too_many_decimals', too_large: 'amount_too_large', negative: 'amount_not_positive' }[problem.code];
      this.add(path, rule, problem.code === 'too_large' ? 'Must be at most 999999999.99.' : problem.message);
      return new Dec(0);
    }
    const amount = new Dec(value);
    if (amount.lte(0)) this.add(path, 'amount_not_positive', 'Must be at least 0.01.');
    else if (amount.gt(MAX_AMOUNT)) this.add(path, 'amount_too_large', 'Must be at most 999999999.99.');
    return amount;
  }

  date(path: string, value: string): string {
    const m = DATE.exec(value);
    const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
    if (!d || d.toISOString().slice(0, 10) !== value) this.add(path, 'invalid_date', 'Must be a calendar date YYYY-MM-DD.');
    return value;
  }

  /** xs:dateTime in UTC without fractions, the form every bank accepts. */
  dateTime(path: string, value: Date): string {
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
      this.add(path, 'invalid_date_time', 'Must be a valid point in time.');
      return '';
    }
    return `${value.toISOString().slice(0, 19)}Z`;
  }
}

/** Amounts as the schemas print them: exactly 2 decimals. */
export function sepaAmount(value: Dec): string {
  return formatDecimal(value, 2);
}

/** NbOfTxs and CtrlSum of a list of amounts, exact. */
export function totals(amounts: readonly Dec[]): { count: string; sum: string } {
  return { count: String(amounts.length), sum: sepaAmount(amounts.reduce((a, b) => a.plus(b), new Dec(0))) };
}
