import { checkDecimal } from './money';

export interface EcbRate {
  date: string;
  currency: string;
  rate: string;
}

const DAY = /<Cube\s+time\s*=\s*["'](\d{4}-\d{2}-\d{2})["']\s*>([\s\S]*?)<\/Cube>/g;
const RATE = /<Cube\s+currency\s*=\s*["']([A-Z]{3})["']\s+rate\s*=\s*["']([0-9.]+)["']\s*\/>/g;

/**
 * Parses an ECB eurofxref feed (daily or history: Cube@time › Cube@currency,@rate, 1 EUR = rate
 * units). Rates are kept as the decimal strings the ECB published; anything malformed is refused.
 */
export function parseEurofxref(xml: string): EcbRate[] {
  const out: EcbRate[] = [];
  for (const day of xml.matchAll(DAY)) {
    const date = day[1]!;
    for (const r of day[2]!.matchAll(RATE)) {
      if (checkDecimal(r[2]!, { maxDecimals: 10 }) !== null) throw new RangeError(`Malformed rate ${r[2]} for ${r[1]} on ${date}`);
      out.push({ date, currency: r[1]!, rate: r[2]! });
    }
  }
  if (out.length === 0) throw new RangeError('No rates in the feed.');
  return out;
}
