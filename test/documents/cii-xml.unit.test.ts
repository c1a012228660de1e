import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { describe, expect, it } from 'vitest';
import { ciiTree, ciiXml } from '../../src/documents/cii';
import { CII_NAMESPACES, serializeCii, type Content, type Element } from '../../src/documents/cii-xml';
import { cases } from './models';

// The CII XML is written as a string (src/documents/cii-xml.ts). It replaced a serialisation through
// xmlbuilder2, kept here as the reference: both must give the same bytes for every document the
// writers' tests know and for text full of markup and odd characters. (The validators judge the
// documents themselves in cii.unit.test.ts.)

const ALWAYS = new Set(['ram:ApplicableHeaderTradeDelivery']);

function isEmpty(c: Content): boolean {
  if (c === null || c === undefined) return true;
  if (typeof c === 'string') return c.trim() === '';
  if (Array.isArray(c)) return c.every(isEmpty);
  return Object.entries(c).every(([k, v]) => k.startsWith('@') || isEmpty(v));
}

function write(parent: XMLBuilder, name: string, content: Content): void {
  if (Array.isArray(content)) {
    for (const item of content) write(parent, name, item);
    return;
  }
  if (isEmpty(content) && !ALWAYS.has(name)) return;
  const el = parent.ele(CII_NAMESPACES[name.slice(0, name.indexOf(':')) as keyof typeof CII_NAMESPACES], name);
  if (typeof content === 'string') {
    el.txt(content.replaceAll('&', '&amp;'));
    return;
  }
  for (const [key, value] of Object.entries(content ?? {})) {
    if (key === '#') {
      if (typeof value === 'string') el.txt(value.replaceAll('&', '&amp;'));
    } else if (key.startsWith('@')) {
      if (typeof value === 'string') el.att(key.slice(1), value.replaceAll('&', '&amp;'));
    } else {
      write(el, key, value);
    }
  }
}

/** The serialisation the CII writer had before: xmlbuilder2, pretty-printed. */
function xmlbuilder2Cii(root: Element): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const top = doc.ele(CII_NAMESPACES.rsm, 'rsm:CrossIndustryInvoice');
  for (const prefix of ['qdt', 'ram', 'udt'] as const) top.att('xmlns:' + prefix, CII_NAMESPACES[prefix]);
  for (const [key, value] of Object.entries(root)) write(top, key, value);
  return doc.end({ prettyPrint: true });
}

const ODD = 'a<b>c&d"e\'f\tg\nh\r\ni\u0001j\u00a0k€&amp;l&#65;m]]>n – Łódź İstanbul Příliš 株式会社 😀 \u202ereversed\u202c';

describe('the CII serialisation', () => {
  it.each(Object.entries(cases))('writes the %s document as xmlbuilder2 did, in both profiles', (_name, doc) => {
    for (const profile of ['en16931', 'xrechnung'] as const) expect(ciiXml(doc, profile)).toBe(xmlbuilder2Cii(ciiTree(doc, profile)));
  });

  it('escapes markup and keeps every other character as xmlbuilder2 did, in text and attributes', () => {
    const tree: Element = {
      'rsm:ExchangedDocument': { 'ram:ID': ODD, 'ram:Name': { '@schemeID': ODD, '#': ODD }, 'ram:Empty': '   ', 'ram:Nothing': null, 'ram:Note': [{ 'ram:Content': 'one' }, { 'ram:Content': '' }, { 'ram:Content': 'two' }] },
      'ram:ApplicableHeaderTradeDelivery': {},
      'ram:Attributes': { '@only': 'x' },
      'ram:Nested': { 'ram:Inner': { 'ram:Deeper': { 'ram:ApplicableHeaderTradeDelivery': {} } }, 'ram:Text': ` ${ODD} ` },
    };
    expect(serializeCii(tree)).toBe(xmlbuilder2Cii(tree));
  });
});

