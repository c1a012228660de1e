// Serialisation shared by the pain writers. They build plain objects in schema order (keys are
// elements, arrays repeat them, `@` keys are attributes, `#` is text), so each writer reads like the
// schema it follows. The objects are written straight to text, without a DOM: a file of 10,000
// debits then needs a few MB besides its text, where xmlbuilder2's DOM needed more than a Worker's
// 128 MB (docs/decisions.md, Payments, "SEPA files").
import type { Pain001Version, Pain008Version } from './model';

export type XmlNode = string | XmlObject | XmlObject[];
export interface XmlObject {
  [name: string]: XmlNode | undefined;
}

/** The document with its namespace, pretty-printed (two spaces per level, text inline). */
export function painDocument(version: Pain008Version | Pain001Version, root: string, body: XmlObject): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${version}">\n`];
  writeElement(out, root, body, '  ');
  out.push('</Document>\n');
  return out.join('');
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

function writeElement(out: string[], name: string, node: XmlNode, indent: string): void {
  if (Array.isArray(node)) {
    for (const item of node) writeElement(out, name, item, indent);
    return;
  }
  if (typeof node === 'string') {
    out.push(`${indent}<${name}>${escapeText(node)}</${name}>\n`);
    return;
  }
  let attributes = '';
  let text: string | undefined;
  const children: [string, XmlNode][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (key === '#') text = value as string;
    else if (key.startsWith('@')) attributes += ` ${key.slice(1)}="${escapeAttribute(value as string)}"`;
    else children.push([key, value]);
  }
  if (text !== undefined) {
    out.push(`${indent}<${name}${attributes}>${escapeText(text)}</${name}>\n`);
  } else if (children.length === 0) {
    out.push(`${indent}<${name}${attributes}/>\n`);
  } else {
    out.push(`${indent}<${name}${attributes}>\n`);
    for (const [key, value] of children) writeElement(out, key, value, `${indent}  `);
    out.push(`${indent}</${name}>\n`);
  }
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
