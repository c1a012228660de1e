/**
 * ISO/IEC 7064 MOD 97-10 check digits over letters-and-digits text (A=10 … Z=35), as IBANs, SEPA
 * creditor identifiers and Leitweg-IDs use them: the text with "00" appended, 98 minus its rest.
 */
export function mod97CheckDigits(text: string): string {
  let rest = 0;
  for (const ch of text.toUpperCase()) for (const d of String(parseInt(ch, 36))) rest = (rest * 10 + Number(d)) % 97;
  return String(98 - ((rest * 100) % 97)).padStart(2, '0');
}
