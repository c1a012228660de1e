import { checkVAT, countries } from 'jsvat';
import type { Env } from '../../env';
import { EU_COUNTRY_CODES } from '../../reference/iso';

/** VAT-id prefixes of the EU member states (Greece uses EL; XI is Northern Ireland for goods). */
const EU_VAT_PREFIXES = new Set([...EU_COUNTRY_CODES].map((c) => (c === 'GR' ? 'EL' : c)).concat('XI'));

export function normalizeVatId(vatId: string): string {
  return vatId.replace(/[\s.\-]/g, '').toUpperCase();
}

export function isEuVatId(vatId: string): boolean {
  return EU_VAT_PREFIXES.has(normalizeVatId(vatId).slice(0, 2));
}

/** Format and check digits of an EU VAT id, per member state (jsvat). Non-EU ids are not checked. */
export function hasValidVatFormat(vatId: string): boolean {
  const normalized = normalizeVatId(vatId);
  if (!isEuVatId(normalized)) return true;
  return checkVAT(normalized, countries).isValid;
}

/** Whether the tax authority confirms an id as registered (VIES in production). */
export interface VatChecker {
  /** true / false when the registry answered, null when it could not be asked. */
  isRegistered(vatId: string): Promise<boolean | null>;
}

/** Local stand-in for VIES: every well-formed EU id is registered unless listed in FAKE_VIES_UNREGISTERED. */
export class FakeVatChecker implements VatChecker {
  private readonly unregistered: Set<string>;
  constructor(unregistered: string | undefined) {
    this.unregistered = new Set((unregistered ?? '').split(',').map((s) => normalizeVatId(s.trim())).filter(Boolean));
  }
  async isRegistered(vatId: string): Promise<boolean | null> {
    const id = normalizeVatId(vatId);
    return isEuVatId(id) && hasValidVatFormat(id) && !this.unregistered.has(id);
  }
}

/** The EU Commission's VIES REST service. Not reachable from tests or local development. */
export class ViesVatChecker implements VatChecker {
  async isRegistered(vatId: string): Promise<boolean | null> {
    const id = normalizeVatId(vatId);
    if (!isEuVatId(id)) return false;
    try {
      const res = await fetch('https://ec.europa.eu/taxation_customs/vies/rest-api/check-vat-number', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ countryCode: id.slice(0, 2), vatNumber: id.slice(2) }),
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) return null;
      const body = (await res.json()) as { valid?: unknown };
      return typeof body.valid === 'boolean' ? body.valid : null;
    } catch {
      return null;
    }
  }
}

export function vatChecker(env: Env): VatChecker {
  return env.VAT_CHECKER === 'vies' ? new ViesVatChecker() : new FakeVatChecker(env.FAKE_VIES_UNREGISTERED);
}
