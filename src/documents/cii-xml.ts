// A small element tree for the CII writer and its serialisation with xmlbuilder2. The writer builds
// plain objects in schema order (a missing value is null) and this file turns them into XML, so
// leaving out what the model lacks is one rule here instead of a condition at every element.
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';

/** An element's content: text, child elements (keys in schema order), or nothing. */
export type Content = string | null | undefined | Element | Element[];
/** Child elements by qualified name; `@name` keys are attributes, `#` is the text of an element with attributes. */
export interface Element {
  [name: string]: Content;
}

export const CII_NAMESPACES = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
} as const;

type Prefix = keyof typeof CII_NAMESPACES;

// Elements the schema requires even when they have nothing to say (XSD minOccurs=1, no content).
const ALWAYS = new Set(['ram:ApplicableHeaderTradeDelivery']);

/**
 * xmlbuilder2's serialiser leaves an `&` alone when it already looks like an entity (`&amp;`,
 * `&#65;`, `&D;`), so "R&D;" would come out as an undefined entity and "&amp;" would lose its
 * meaning. Escaping every `&` ourselves makes each one an entity it then keeps as is.
 */
function escapeAmpersands(text: string): string {
  return text.replaceAll('&', '&amp;');
}

function isText(c: Content): c is string {
  return typeof c === 'string';
}

/** Whether content would serialise to nothing: the validators reject empty elements (PEPPOL-EN16931-R008). */
function isEmpty(c: Content): boolean {
  if (c === null || c === undefined) return true;
  if (isText(c)) return c.trim() === '';
  if (Array.isArray(c)) return c.every(isEmpty);
  return Object.entries(c).every(([k, v]) => k.startsWith('@') || isEmpty(v));
}

function write(parent: XMLBuilder, name: string, content: Content): void {
  if (Array.isArray(content)) {
    for (const item of content) write(parent, name, item);
    return;
  }
  if (isEmpty(content) && !ALWAYS.has(name)) return;
  const prefix = name.slice(0, name.indexOf(':')) as Prefix;
  const el = parent.ele(CII_NAMESPACES[prefix], name);
  if (isText(content)) {
    el.txt(escapeAmpersands(content));
    return;
  }
  for (const [key, value] of Object.entries(content ?? {})) {
    if (key === '#') {
      if (isText(value)) el.txt(escapeAmpersands(value));
    } else if (key.startsWith('@')) {
      if (isText(value)) el.att(key.slice(1), escapeAmpersands(value));
    } else {
      write(el, key, value);
    }
  }
}

/** The document as UTF-8 XML with a declaration, indented; the same tree gives the same string. */
export function serializeCii(root: Element): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const top = doc.ele(CII_NAMESPACES.rsm, 'rsm:CrossIndustryInvoice');
  for (const prefix of ['qdt', 'ram', 'udt'] as const) top.att('xmlns:' + prefix, CII_NAMESPACES[prefix]);
  for (const [key, value] of Object.entries(root)) write(top, key, value);
  return doc.end({ prettyPrint: true });
}
