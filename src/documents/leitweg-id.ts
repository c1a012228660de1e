// The Leitweg-ID of German public buyers (KoSIT, "Formatspezifikation Leitweg-ID" 2.0.2): coarse
// address (2–12 digits), an optional fine address (up to 30 letters or digits), and two check
// digits by ISO/IEC 7064 MOD 97-10 over both, letters counted as 10–35.

import { mod97CheckDigits } from '../lib/mod97';

const FORMAT = /^([0-9]{2,12})(?:-([0-9A-Za-z]{1,30}))?-([0-9]{2})$/;

/** Why a Leitweg-ID is not one, or null when it is. */
export function leitwegIdProblem(id: string): string | null {
  const m = FORMAT.exec(id);
  if (!m) return 'Must be a Leitweg-ID: 2–12 digits, optionally "-" and up to 30 letters or digits, then "-" and two check digits (e.g. 04011000-12345-03).';
  const check = mod97CheckDigits(`${m[1]}${m[2] ?? ''}`);
  return check === m[3] ? null : `The check digits do not match (expected ${check}).`;
}
