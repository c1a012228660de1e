import { describe, expect, it } from 'vitest';
import {
  pain001Xml,
  pain008Xml,
  type Pain001Version,
  type Pain008Version,
  type SepaCreditTransferFile,
  type SepaDirectDebit,
  type SepaDirectDebitFile,
} from '../../src/documents/sepa';
import { validateSepa, type SepaFileToCheck } from '../support/oracles.node';

// Every file the writers produce goes to the official ISO 20022 schemas (and, for the German
// flavours, the Deutsche Kreditwirtschaft's restricted ones) through test/oracles/validate-sepa.sh;
// our own assertions only add what a schema cannot know: that the numbers are the input's.

const CREATED_AT = new Date('2026-11-23T09:15:00.123Z');
const CREDITOR = { name: 'Acme GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', creditorId: 'DE98ZZZ09999999999' };

function debit(n: number, amount: string, overrides: Partial<SepaDirectDebit> = {}): SepaDirectDebit {
  return {
    endToEndId: `INV-2026-${String(n).padStart(5, '0')}`,
    amount,
    mandateId: `MANDATE-${n}`,
    mandateSignedOn: '2026-01-15',
    debtor: { name: `Customer ${n}`, iban: 'DE02120300000000202051', bic: 'BYLADEM1001' },
    remittance: `Invoice INV-2026-${n}`,
    ...overrides,
  };
}

function debitFile(messageId: string, groups: SepaDirectDebitFile['groups']): SepaDirectDebitFile {
  return { messageId, createdAt: CREATED_AT, creditor: CREDITOR, groups };
}

// 0.1 and 0.2 taken turns 200 times: a float sum drifts (30.000000000000004), the file must say 30.00.
// (Not more: the judge's CtrlSum XPath grows quadratically, ~4 s per 1000 debits.)
const FLOAT_TRAP = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? '0.10' : '0.20'));

const DEBIT_CASES: { name: string; file: SepaDirectDebitFile; groups: { date: string; seq: string; amounts: string[] }[]; sum: string }[] = [
  {
    name: 'one-debit',
    file: debitFile('DD-ONE', [{ collectionDate: '2026-12-01', sequenceType: 'OOFF', debits: [debit(1, '119.00')] }]),
    groups: [{ date: '2026-12-01', seq: 'OOFF', amounts: ['119.00'] }],
    sum: '119.00',
  },
  {
    name: 'two-dates-frst-rcur',
    file: debitFile('DD-TWO-DATES', [
      { collectionDate: '2026-12-01', sequenceType: 'FRST', debits: [debit(1, '10'), debit(2, '20.5')] },
      { collectionDate: '2026-12-01', sequenceType: 'RCUR', debits: [debit(3, '30.25'), debit(4, '0.75'), debit(5, '1000')] },
      { collectionDate: '2026-12-15', sequenceType: 'RCUR', debits: [debit(6, '99.99')] },
      { collectionDate: '2026-12-15', sequenceType: 'FNAL', debits: [debit(7, '5.00')] },
    ]),
    groups: [
      { date: '2026-12-01', seq: 'FRST', amounts: ['10.00', '20.50'] },
      { date: '2026-12-01', seq: 'RCUR', amounts: ['30.25', '0.75', '1000.00'] },
      { date: '2026-12-15', seq: 'RCUR', amounts: ['99.99'] },
      { date: '2026-12-15', seq: 'FNAL', amounts: ['5.00'] },
    ],
    sum: '1166.49',
  },
  {
    name: 'umlauts-long-names-no-bic',
    file: debitFile('DD-TEXT', [
      {
        collectionDate: '2026-12-01',
        sequenceType: 'FRST',
        debits: [
          debit(1, '12.34', {
            debtor: { name: `Jürgen Müller-Lüdenscheidt & Söhne, Straße ${'ä'.repeat(80)}`, iban: 'AT611904300234573201' },
            remittance: `Rechnung für Öl & Gas — Größe ${'x'.repeat(200)}`,
          }),
          debit(2, '1.00', { debtor: { name: 'François Łódź 東京', iban: 'FR1420041010050500013M02606' } }),
        ],
      },
    ]),
    groups: [{ date: '2026-12-01', seq: 'FRST', amounts: ['12.34', '1.00'] }],
    sum: '13.34',
  },
  {
    name: 'smallest-and-largest',
    file: debitFile('DD-LIMITS', [{ collectionDate: '2026-12-01', sequenceType: 'RCUR', debits: [debit(1, '0.01'), debit(2, '999999999.99')] }]),
    groups: [{ date: '2026-12-01', seq: 'RCUR', amounts: ['0.01', '999999999.99'] }],
    sum: '1000000000.00',
  },
  {
    name: 'float-trap',
    file: debitFile('DD-MANY', [{ collectionDate: '2026-12-01', sequenceType: 'RCUR', debits: FLOAT_TRAP.map((a, i) => debit(i, a)) }]),
    groups: [{ date: '2026-12-01', seq: 'RCUR', amounts: FLOAT_TRAP }],
    sum: '30.00',
  },
];

const TRANSFER_FILE: SepaCreditTransferFile = {
  messageId: 'REFUNDS-2026-11-23',
  createdAt: CREATED_AT,
  payer: { name: 'Acme GmbH', iban: 'DE89370400440532013000' },
  groups: [
    {
      executionDate: '2026-11-24',
      transfers: [
        { endToEndId: 'CN-2026-1', amount: '19.99', creditor: { name: 'Jürgen Müller', iban: 'DE02120300000000202051', bic: 'BYLADEM1001' }, remittance: 'Gutschrift CN-2026-1' },
        { endToEndId: 'CN-2026-2', amount: '0.01', creditor: { name: 'Ölmühle AG', iban: 'NL91ABNA0417164300' } },
      ],
    },
    { executionDate: '2026-11-30', transfers: FLOAT_TRAP.slice(0, 10).map((amount, i) => ({ endToEndId: `RF-${i}`, amount, creditor: { name: `Customer ${i}`, iban: 'DE02120300000000202051' } })) },
  ],
};

const values = (xml: string, element: string) => [...xml.matchAll(new RegExp(`<${element}(?: [^>]*)?>([^<]*)</${element}>`, 'g'))].map((m) => m[1]!);
const paymentInfos = (xml: string) => xml.split('<PmtInf>').slice(1);
const groupHeader = (xml: string) => xml.slice(xml.indexOf('<GrpHdr>'), xml.indexOf('</GrpHdr>'));

const PAIN008: Pain008Version[] = ['pain.008.001.02', 'pain.008.001.08'];
const PAIN001: Pain001Version[] = ['pain.001.001.03', 'pain.001.001.09'];
const isGermanFlavour = (v: string) => v === 'pain.008.001.02' || v === 'pain.001.001.03';

describe('pain.008 direct debits', () => {
  const files: (SepaFileToCheck & { expected: (typeof DEBIT_CASES)[number] })[] = DEBIT_CASES.flatMap((c) =>
    PAIN008.map((v) => ({ name: `${c.name}-${v.replaceAll('.', '_')}`, xml: pain008Xml(c.file, v), strict: isGermanFlavour(v), expected: c })),
  );

  it('pass the ISO 20022 schemas, and the German restricted schema for pain.008.001.02', async () => {
    const verdicts = await validateSepa(files);
    expect(Object.fromEntries(Object.entries(verdicts).map(([n, v]) => [n, v.valid ? 'valid' : v.errors]))).toEqual(Object.fromEntries(files.map((f) => [f.name, 'valid'])));
  });

  it.each(files.map((f) => [f.name, f] as const))('%s says what the input says', (_, { xml, expected }) => {
    expect(values(groupHeader(xml), 'NbOfTxs')).toEqual([String(expected.groups.reduce((n, g) => n + g.amounts.length, 0))]);
    expect(values(groupHeader(xml), 'CtrlSum')).toEqual([expected.sum]);
    expect(
      paymentInfos(xml).map((p) => ({ date: values(p, 'ReqdColltnDt')[0], seq: values(p, 'SeqTp')[0], count: values(p, 'NbOfTxs')[0], sum: values(p, 'CtrlSum')[0], amounts: values(p, 'InstdAmt') })),
    ).toEqual(expected.groups.map((g) => ({ date: g.date, seq: g.seq, count: String(g.amounts.length), sum: sumOfCents(g.amounts), amounts: g.amounts })));
    expect(values(xml, 'CreDtTm')).toEqual(['2026-11-23T09:15:00Z']);
    expect(values(xml, 'Id').filter((id) => id.includes('ZZZ'))).toEqual(expected.groups.map(() => 'DE98ZZZ09999999999'));
  });

  it('keeps the float trap meaningful: a JS number sum would be wrong', () => {
    expect(FLOAT_TRAP.reduce((a, b) => a + Number(b), 0)).not.toBe(30);
  });

  it('transliterates umlauts, replaces other characters and cuts names to 70 and remittance to 140 characters', () => {
    const xml = files.find((f) => f.name.startsWith('umlauts'))!.xml;
    const [creditor, first, second] = values(xml, 'Nm').slice(1);
    expect(creditor).toBe('Acme GmbH');
    expect(first).toBe(`Juergen Mueller-Luedenscheidt + Soehne, Strasse ${'ae'.repeat(80)}`.slice(0, 70));
    expect(second).toBe('Francois Lodz');
    expect(values(xml, 'Ustrd')[0]).toBe(`Rechnung fuer Oel + Gas - Groesse ${'x'.repeat(200)}`.slice(0, 140));
    // No BIC: the debtor agent is NOTPROVIDED, as the IBAN-only rule of the EPC allows.
    expect(values(xml, 'Id').filter((id) => id === 'NOTPROVIDED')).toHaveLength(2);
  });

  it('writes the same bytes for the same input', () => {
    for (const c of DEBIT_CASES) for (const v of PAIN008) expect(pain008Xml(structuredClone(c.file), v)).toBe(pain008Xml(c.file, v));
  });
});

describe('pain.001 credit transfers', () => {
  const files = PAIN001.map((v) => ({ name: `refunds-${v.replaceAll('.', '_')}`, xml: pain001Xml(TRANSFER_FILE, v), strict: isGermanFlavour(v) }));

  it('pass the ISO 20022 schemas, and the German restricted schema for pain.001.001.03', async () => {
    const verdicts = await validateSepa(files);
    expect(Object.fromEntries(Object.entries(verdicts).map(([n, v]) => [n, v.valid ? 'valid' : v.errors]))).toEqual({ 'refunds-pain_001_001_03': 'valid', 'refunds-pain_001_001_09': 'valid' });
  });

  it.each(files.map((f) => [f.name, f.xml] as const))('%s says what the input says', (_, xml) => {
    expect(values(groupHeader(xml), 'NbOfTxs')).toEqual(['12']);
    expect(values(groupHeader(xml), 'CtrlSum')).toEqual(['21.50']);
    expect(paymentInfos(xml).map((p) => [values(p, 'NbOfTxs')[0], values(p, 'CtrlSum')[0], values(p, 'InstdAmt').join(' ')])).toEqual([
      ['2', '20.00', '19.99 0.01'],
      ['10', '1.50', FLOAT_TRAP.slice(0, 10).join(' ')],
    ]);
    expect(xml).toContain(xml.includes('pain.001.001.03') ? '<ReqdExctnDt>2026-11-24</ReqdExctnDt>' : '<Dt>2026-11-24</Dt>');
    expect(values(xml, 'Nm')).toContain('Oelmuehle AG');
  });

  it('writes the same bytes for the same input', () => {
    for (const v of PAIN001) expect(pain001Xml(structuredClone(TRANSFER_FILE), v)).toBe(pain001Xml(TRANSFER_FILE, v));
  });
});

describe('the SEPA judge', () => {
  // Without this, a validator that cannot run (or ignores what it reads) would pass everything.
  it('rejects broken copies of a valid file for what they break', async () => {
    const valid = pain008Xml(DEBIT_CASES[1]!.file, 'pain.008.001.02');
    const broken = {
      'wrong-ctrlsum': valid.replace('<CtrlSum>1166.49</CtrlSum>', '<CtrlSum>1166.50</CtrlSum>'),
      'wrong-nboftxs': valid.replace('<NbOfTxs>7</NbOfTxs>', '<NbOfTxs>8</NbOfTxs>'),
      'missing-mandate-id': valid.replace(/<MndtId>[^<]*<\/MndtId>/, ''),
      'three-decimals': valid.replace('>99.99</InstdAmt>', '>99.999</InstdAmt>'),
      'unknown-sequence-type': valid.replace('<SeqTp>FNAL</SeqTp>', '<SeqTp>LAST</SeqTp>'),
    };
    for (const xml of Object.values(broken)) expect(xml).not.toBe(valid);
    const verdicts = await validateSepa([{ name: 'valid', xml: valid, strict: true }, ...Object.entries(broken).map(([name, xml]) => ({ name, xml, strict: true }))]);
    const judges = Object.fromEntries(Object.entries(verdicts).map(([n, v]) => [n, v.valid ? 'valid' : [...new Set(v.errors.map((e) => e.split(':')[0]))].sort().join(', ')]));
    expect(judges).toEqual({
      valid: 'valid',
      'wrong-ctrlsum': 'ARITH',
      'wrong-nboftxs': 'ARITH',
      'missing-mandate-id': 'DK-SEPA',
      'three-decimals': 'ARITH, DK-SEPA',
      'unknown-sequence-type': 'DK-SEPA, ISO',
    });
    expect(verdicts['wrong-ctrlsum']!.errors).toEqual(['ARITH: GrpHdr CtrlSum=1166.50 but transactions sum to 1166.49']);
  });
});

/** The expected CtrlSum of a group, in integer cents so the test itself never sums floats. */
function sumOfCents(amounts: string[]): string {
  const cents = amounts.reduce((total, a) => total + BigInt(a.replace('.', '')), 0n);
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}
