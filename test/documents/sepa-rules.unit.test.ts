import { describe, expect, it } from 'vitest';
import { creditorIdProblem, pain001Xml, pain008Xml, SepaInputError, sepaText, type SepaCreditTransferFile, type SepaDirectDebitFile } from '../../src/documents/sepa';

// The rules the writers apply before anything is written: invalid input is refused as a whole,
// with every broken rule named (the services will answer it as a 422 with one violation each).

function violationsOf(write: () => string): { path: string; rule: string }[] {
  try {
    write();
  } catch (err) {
    expect(err).toBeInstanceOf(SepaInputError);
    return (err as SepaInputError).violations.map(({ path, rule }) => ({ path, rule }));
  }
  throw new Error('expected the writer to refuse the input');
}

const VALID_DEBIT = { endToEndId: 'INV-1', amount: '10.00', mandateId: 'M-1', mandateSignedOn: '2026-01-01', debtor: { name: 'Jane Doe', iban: 'DE02120300000000202051' } };

describe('pain.008 input rules', () => {
  it('names every broken rule of a direct-debit file at once', () => {
    const file: SepaDirectDebitFile = {
      messageId: 'has spaces',
      createdAt: new Date('not a date'),
      creditor: { name: '東京', iban: 'DE89370400440532013001', bic: 'NOTABIC', creditorId: 'DE99ZZZ09999999999' },
      groups: [
        {
          collectionDate: '2026-02-30',
          sequenceType: 'LAST' as 'RCUR',
          debits: [
            { ...VALID_DEBIT, amount: '10.001' },
            { ...VALID_DEBIT, endToEndId: 'INV-2', amount: '0.00' },
            { ...VALID_DEBIT, endToEndId: 'INV-3', amount: '-5.00' },
            { ...VALID_DEBIT, endToEndId: 'INV-4', amount: '1000000000.00' },
            { ...VALID_DEBIT, endToEndId: 'INV-5', amount: '1e3' },
            { ...VALID_DEBIT, endToEndId: 'INV-6', mandateId: '' },
            { ...VALID_DEBIT, endToEndId: 'INV-1' },
            { ...VALID_DEBIT, endToEndId: '/INV-8', mandateId: 'a//b' },
          ],
        },
        { collectionDate: '2026-12-01', sequenceType: 'FRST', debits: [{ ...VALID_DEBIT, endToEndId: 'INV-9', mandateSignedOn: '2026-12-02' }] },
        { collectionDate: '2026-12-01', sequenceType: 'RCUR', debits: [] },
      ],
    };
    expect(violationsOf(() => pain008Xml(file, 'pain.008.001.02'))).toEqual([
      { path: 'messageId', rule: 'invalid_id' },
      { path: 'createdAt', rule: 'invalid_date_time' },
      { path: 'creditor.name', rule: 'text_empty' },
      { path: 'creditor.iban', rule: 'invalid_iban' },
      { path: 'creditor.bic', rule: 'invalid_bic' },
      { path: 'creditor.creditorId', rule: 'invalid_creditor_id' },
      { path: 'groups[0].collectionDate', rule: 'invalid_date' },
      { path: 'groups[0].sequenceType', rule: 'invalid_sequence_type' },
      { path: 'groups[0].debits[0].amount', rule: 'amount_too_many_decimals' },
      { path: 'groups[0].debits[1].amount', rule: 'amount_not_positive' },
      { path: 'groups[0].debits[2].amount', rule: 'amount_not_positive' },
      { path: 'groups[0].debits[3].amount', rule: 'amount_too_large' },
      { path: 'groups[0].debits[4].amount', rule: 'invalid_amount' },
      { path: 'groups[0].debits[5].mandateId', rule: 'invalid_id' },
      { path: 'groups[0].debits[6].endToEndId', rule: 'duplicate_end_to_end_id' },
      { path: 'groups[0].debits[7].endToEndId', rule: 'invalid_id' },
      { path: 'groups[0].debits[7].mandateId', rule: 'invalid_id' },
      { path: 'groups[1].debits[0].mandateSignedOn', rule: 'mandate_signed_after_collection' },
      { path: 'groups[2].debits', rule: 'no_transactions' },
    ]);
  });

  it('refuses a file without groups and says so in the message', () => {
    const file: SepaDirectDebitFile = { messageId: 'M', createdAt: new Date(0), creditor: { name: 'A', iban: 'DE89370400440532013000', creditorId: 'DE98ZZZ09999999999' }, groups: [] };
    expect(() => pain008Xml(file, 'pain.008.001.08')).toThrow(/groups: no_transactions/);
  });
});

describe('pain.001 input rules', () => {
  it('names every broken rule of a credit-transfer file at once', () => {
    const file: SepaCreditTransferFile = {
      messageId: 'R'.repeat(36),
      createdAt: new Date(0),
      payer: { name: 'Acme', iban: 'XX00', bic: 'COBADEFF' },
      groups: [
        {
          executionDate: '26-11-2026',
          transfers: [
            { endToEndId: 'CN-1', amount: '12.5', creditor: { name: '   ', iban: 'DE02120300000000202051', bic: 'BYLADEM1001X' } },
            { endToEndId: 'CN-1', amount: '0.001', creditor: { name: 'B', iban: 'DE02 1203 0000 0000 2020 51' } },
          ],
        },
      ],
    };
    expect(violationsOf(() => pain001Xml(file, 'pain.001.001.03'))).toEqual([
      { path: 'messageId', rule: 'invalid_id' },
      { path: 'payer.iban', rule: 'invalid_iban' },
      { path: 'groups[0].executionDate', rule: 'invalid_date' },
      { path: 'groups[0].transfers[0].creditor.name', rule: 'text_empty' },
      { path: 'groups[0].transfers[0].creditor.bic', rule: 'invalid_bic' },
      { path: 'groups[0].transfers[1].endToEndId', rule: 'duplicate_end_to_end_id' },
      { path: 'groups[0].transfers[1].amount', rule: 'amount_too_many_decimals' },
    ]);
  });
});

describe('SEPA text and identifiers', () => {
  it.each([
    ['Müller & Söhne GmbH', 'Mueller + Soehne GmbH'],
    ['ÄÖÜ äöü ß', 'AeOeUe aeoeue ss'],
    ['Crème brûlée, Ærø', 'Creme brulee, AEroe'],
    ['Smith_Co <info@example.com>', 'Smith-Co info example.com'],
    ['  many   spaces\tand\nlines ', 'many spaces and lines'],
    ['ﬁnance ½', 'finance 1 2'],
  ])('sepaText(%j) is %j', (input, expected) => {
    expect(sepaText(input, 70)).toBe(expected);
  });

  it('cuts after transliterating, so an umlaut never splits', () => {
    expect(sepaText('Grüße', 4)).toBe('Grue');
    expect(sepaText('a b', 2)).toBe('a');
  });

  it.each([
    ['DE98ZZZ09999999999', null],
    ['DE98ABC09999999999', null], // the business code is not part of the check
    ['DE97ZZZ09999999999', 'The check digits do not match (expected 98).'],
    ['DE98ZZZ0999999999', 'The check digits do not match (expected 18).'], // one digit short
    ['de98zzz09999999999', expect.stringMatching(/^Must be a SEPA creditor identifier/)],
    ['DE98', expect.stringMatching(/^Must be a SEPA creditor identifier/)],
  ])('creditorIdProblem(%j)', (id, expected) => {
    expect(creditorIdProblem(id)).toEqual(expected);
  });
});
