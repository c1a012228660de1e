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
