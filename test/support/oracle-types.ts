// What the judges take and answer (test/support/oracles.node.ts runs them; oracles.ts asks from workerd).

export interface EinvoiceToCheck {
  /** A file name without extension: letters, digits, dash and underscore. */
  name: string;
  xml: string;
  /** Also check the KoSIT XRechnung 3.0 rules. */
  xrechnung?: boolean;
}

export interface EinvoiceVerdict {
  valid: boolean;
  /** Each failed rule: `SOURCE RULE: message` (SOURCE is XSD, EN16931 or XRECHNUNG). */
  errors: string[];
}

/** A SEPA file for the ISO 20022 schema judge; `strict` adds the German banks' restricted schema (pain.008.001.02, pain.001.001.03). */
export interface SepaFileToCheck {
  name: string;
  xml: string;
  strict?: boolean;
}

/** `errors`: one line per finding, prefixed with the judge that made it (ISO, DK-SEPA, ARITH). */
export interface SepaVerdict {
  valid: boolean;
  errors: string[];
}
