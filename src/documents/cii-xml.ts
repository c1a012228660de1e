// A small element tree for the CII writer and its serialisation. The writer builds plain objects in
// schema order (a missing value is null) and this file turns them into XML, so leaving out what the
// model lacks is one rule here instead of a condition at every element. The XML is written as a
// string: building it through xmlbuilder2's DOM was a tenth of a document's render time.

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

// Escaping as xmlbuilder2 serialised the tree before (the test compares both): markup characters
// become entities, every `&` included; everything else, line breaks too, stays as it is.
const escapeText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replaceAll('"', '&quot;');

function write(out: string[], indent: string, name: string, content: Content): void {
  if (Array.isArray(content)) {
    for (const item of content) write(out, indent, name, item);
    return;
  }
  if (isEmpty(content) && !ALWAYS.has(name)) return;
  if (isText(content)) {
    out.push(`${indent}<${name}>${escapeText(content)}</${name}>`);
    return;
  }
  let attributes = '';
  let text: string | null = null;
  const children: [string, Content][] = [];
  for (const [key, value] of Object.entries(content ?? {})) {
    if (key === '#') {
      if (isText(value)) text = value;
    } else if (key.startsWith('@')) {
      if (isText(value)) attributes += ` ${key.slice(1)}="${escapeAttribute(value)}"`;
    } else if (!isEmpty(value) || ALWAYS.has(key)) {
      children.push([key, value]);
    }
  }
  if (text !== null && children.length === 0) {
    out.push(`${indent}<${name}${attributes}>${escapeText(text)}</${name}>`);
  } else if (children.length === 0) {
    out.push(`${indent}<${name}${attributes}/>`);
  } else {
    out.push(`${indent}<${name}${attributes}>`);
    for (const [key, value] of children) write(out, `${indent}  `, key, value);
    out.push(`${indent}</${name}>`);
  }
}

/** The document as UTF-8 XML with a declaration, indented; the same tree gives the same string. */
export function serializeCii(root: Element): string {
  const namespaces = (Object.keys(CII_NAMESPACES) as Prefix[]).map((p) => ` xmlns:${p}="${CII_NAMESPACES[p]}"`).join('');
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<rsm:CrossIndustryInvoice${namespaces}>`];
  for (const [key, value] of Object.entries(root)) write(out, '  ', key, value);
  out.push('</rsm:CrossIndustryInvoice>');
  return out.join('\n');
}
