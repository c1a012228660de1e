// Serialisation shared by the pain writers. They build plain objects in schema order (xmlbuilder2's
// object form: keys are elements, arrays repeat them, `@` keys are attributes, `#` is text), so each
// writer reads like the schema it follows.
import { create } from 'xmlbuilder2';
import type { Pain001Version, Pain008Version } from './model';

export type XmlNode = string | XmlObject | XmlObject[];
export interface XmlObject {
  [name: string]: XmlNode | undefined;
}

/**
 * The document with its namespace, pretty-printed. All text has passed the SEPA character set
 * (no "&", "<" or quotes), so xmlbuilder2's handling of entity-like text never comes into play.
 */
export function painDocument(version: Pain008Version | Pain001Version, root: string, body: XmlObject): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(`urn:iso:std:iso:20022:tech:xsd:${version}`, 'Document');
  doc.ele({ [root]: dropUndefined(body) });
  return doc.end({ prettyPrint: true }) + '\n';
}

function dropUndefined(node: XmlObject): XmlObject {
  const out: XmlObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    out[key] = typeof value === 'string' ? value : Array.isArray(value) ? value.map(dropUndefined) : dropUndefined(value);
  }
  return out;
}

/** FinInstnId: the BIC under its version's name, or NOTPROVIDED where an agent is required but unknown. */
export function financialInstitution(bic: string | undefined, bicElement: 'BIC' | 'BICFI'): XmlObject {
  return { FinInstnId: bic ? { [bicElement]: bic } : { Othr: { Id: 'NOTPROVIDED' } } };
}

/** A PmtInfId unique within the file and tied to its message: the message id cut to leave room for "-n". */
export function paymentInfoId(messageId: string, index: number): string {
  const suffix = `-${index + 1}`;
  return `${messageId.slice(0, 35 - suffix.length)}${suffix}`;
}
