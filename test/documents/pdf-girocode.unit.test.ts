import qrcode from 'qrcode-generator';
import { describe, expect, it } from 'vitest';
import { girocodePayload } from '../../src/documents/pdf';
import { qrMatrix } from '../../src/documents/pdf/girocode';
import { formatDate, formatMoney, formatNumber, formatPercent, maskIban } from '../../src/documents/pdf/format';
import type { DocumentModel } from '../../src/documents/model';
import { cases } from './models';

// The GiroCode payload against EPC069-12 (version 002): one field per line, in this order.
const FIELDS = ['service tag', 'version', 'character set', 'identification', 'BIC', 'name', 'IBAN', 'amount', 'purpose', 'structured reference', 'remittance'];

function fields(payload: string): Record<string, string> {
  return Object.fromEntries(payload.split('\n').map((v, i) => [FIELDS[i] ?? `extra ${i}`, v]));
}

const plain = cases.plainDe19!;

describe('girocodePayload', () => {
  it('lays out a SEPA credit transfer as EPC069-12 version 002 asks', () => {
    const payload = girocodePayload(plain)!;
    expect(payload).toBe('BCD\n002\n1\nSCT\nBYLADEM1001\nBeispiel Software GmbH\nDE02120300000000202051\nEUR123.75\n\n\nRE-0000000001');
    expect(fields(payload)).toEqual({
      'service tag': 'BCD',
      version: '002',
      'character set': '1',
      identification: 'SCT',
      BIC: 'BYLADEM1001',
      name: 'Beispiel Software GmbH',
      IBAN: 'DE02120300000000202051',
      amount: 'EUR123.75',
      purpose: '',
      'structured reference': '',
      remittance: 'RE-0000000001',
    });
    // The whole code stays within the standard's 331 bytes.
    expect(new TextEncoder().encode(payload).length).toBeLessThanOrEqual(331);
  });

  it('asks for the amount due, not the gross, when part was paid', () => {
    expect(fields(girocodePayload(cases.discounts!)!).amount).toBe('EUR302.13');
  });

  it('leaves out trailing empty fields, cuts the name to 70 characters, drops line breaks and spaces in the IBAN', () => {
    const long = 'Ä'.repeat(80);
    const doc: DocumentModel = {
      ...plain,
      payment: { ...plain.payment!, remittance: null, creditTransfer: { iban: 'DE02 1203 0000 0000 2020 51', bic: null, accountName: `${long}\nx`, bankName: null } },
    };
    const payload = girocodePayload(doc)!;
    expect(payload).toBe(`BCD\n002\n1\nSCT\n\n${'Ä'.repeat(70)}\nDE02120300000000202051\nEUR123.75\n\n\nRE-0000000001`);
    const noNumber = girocodePayload({ ...doc, number: null, preview: false })!;
    expect(noNumber.endsWith('\nEUR123.75')).toBe(true);
  });

  it.each<[string, DocumentModel]>([
    ['another currency', cases.usdConverted!],
    ['a credit note (no payment)', cases.creditNote!],
    ['a cancellation (negative)', cases.cancellation!],
    ['direct debit', { ...plain, payment: { ...plain.payment!, meansCode: '59', creditTransfer: null, directDebit: { mandateReference: 'M-1', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE89370400440532013000' } } }],
    ['a non-SEPA transfer', { ...plain, payment: { ...plain.payment!, meansCode: '30' } }],
    ['nothing due', { ...plain, totals: { ...plain.totals, paid: plain.totals.gross, due: '0.00' } }],
    ['a preview', { ...plain, preview: true, number: null }],
    ['more than EPC allows', { ...plain, totals: { ...plain.totals, due: '1000000000.00' } }],
  ])('is absent for %s', (_, doc) => {
    expect(girocodePayload(doc)).toBeNull();
  });

  it('encodes the payload as UTF-8 in byte mode at level M', () => {
    const ascii = qrMatrix('BCD\n002\n1\nSCT\n\nA\nDE02120300000000202051\nEUR1.00');
    const umlauts = qrMatrix(`BCD\n002\n1\nSCT\n\n${'Ä'.repeat(60)}\nDE02120300000000202051\nEUR1.00`);
    expect(ascii.length).toBeGreaterThanOrEqual(21);
    expect((ascii.length - 17) % 4).toBe(0);
    // 60 × "Ä" are 120 UTF-8 bytes: a larger symbol than the 60 one-byte characters would need.
    expect(umlauts.length).toBeGreaterThan(qrMatrix(`BCD\n002\n1\nSCT\n\n${'A'.repeat(60)}\nDE02120300000000202051\nEUR1.00`).length);
  });

  // The renderer makes its QR codes itself (src/documents/pdf/qr.ts); each must be the symbol
  // qrcode-generator makes of the same bytes: same version, data, error correction and mask.
  it('is the symbol qrcode-generator makes, for payloads of every length a GiroCode can have', () => {
    const reference = (payload: string) => {
      const qr = qrcode(0, 'M');
      qr.addData(String.fromCharCode(...new TextEncoder().encode(payload)), 'Byte');
      qr.make();
      const n = qr.getModuleCount();
      return Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => qr.isDark(r, c)));
    };
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
    const alphabet = 'ABCXYZabcxyz0123456789 .,-/ÄÖÜäöüßŁłŞşČč€\n';
    const payloads = [girocodePayload(plain)!, girocodePayload(cases.discounts!)!];
    for (let length = 1; length <= 331; length += 3) payloads.push(Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
    const versions = new Set<number>();
    for (const payload of payloads) {
      const ours = qrMatrix(payload);
      expect(ours, JSON.stringify(payload)).toEqual(reference(payload));
      versions.add((ours.length - 17) / 4);
    }
    // Versions with and without version information (7 and above) are among them.
    expect(Math.min(...versions)).toBeLessThan(7);
    expect(Math.max(...versions)).toBeGreaterThanOrEqual(10);
  });
});

describe('the PDF formats', () => {
  it.each([
    ['1234.50', 'EUR', 'de', '1.234,50 €'],
    ['1234.50', 'EUR', 'en', '€1,234.50'],
    ['-123.75', 'EUR', 'de', '-123,75 €'],
    ['-123.75', 'EUR', 'en', '-€123.75'],
    ['1200.00', 'CHF', 'de', '1.200,00 CHF'],
    ['1200.00', 'CHF', 'en', 'CHF 1,200.00'],
    ['1234567.891', 'KWD', 'de', '1.234.567,891 KWD'],
    ['1500', 'JPY', 'en', '¥1,500'],
    ['0.00', 'EUR', 'de', '0,00 €'],
    ['-0.00', 'EUR', 'en', '€0.00'],
  ] as const)('%s %s in %s is %s', (amount, currency, lang, expected) => {
    expect(formatMoney(amount, currency, lang)).toBe(expected);
  });

  it('keeps the decimals a unit price has beyond the currency, and none it lacks', () => {
    expect(formatMoney('0.0125', 'EUR', 'de')).toBe('0,0125 €');
    expect(formatMoney('12.5', 'EUR', 'de')).toBe('12,50 €');
    expect(formatNumber('10.000', 'de')).toBe('10');
    expect(formatNumber('1234.5', 'en')).toBe('1,234.5');
  });

  it('formats percentages, dates and masked IBANs', () => {
    expect(formatPercent('19', 'de')).toBe('19 %');
    expect(formatPercent('5.50', 'de')).toBe('5,5 %');
    expect(formatPercent('19', 'en')).toBe('19%');
    expect(formatDate('2026-11-02', 'de')).toBe('02.11.2026');
    expect(formatDate('2026-11-02', 'en')).toBe('2 November 2026');
    expect(maskIban('DE89370400440532013000')).toBe('DE89 XXXX XXXX XXXX XX30 00');
  });
});
