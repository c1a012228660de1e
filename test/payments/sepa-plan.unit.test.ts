import { describe, expect, it } from 'vitest';
import { pain008Xml, SepaInputError } from '../../src/documents/sepa';
import { ApiError } from '../../src/http/errors';
import { endToEndId, holderName, writeLeavingOut } from '../../src/services/payments/sepa-plan';

// The parts of a SEPA file the services decide: end-to-end ids from invoice numbers, the debtor's
// name, and leaving out what the writer refuses.

const TX = '01a2095c-68a7-700b-968d-71f0a1b2c3d4';

describe('endToEndId', () => {
  it.each([
    ['RE-0000000001', 1, 'RE-0000000001', 'a number of the SEPA set, as it is'],
    ['RE-2026/0001', 1, 'RE-2026/0001', 'slashes inside are fine'],
    ['RE-0000000001', 3, 'RE-0000000001-3', 'a later attempt names itself'],
    ['RE 2026 Nr. 7', 1, 'RE-2026-Nr.-7', 'spaces become dashes'],
    ['Rechnung Ä/Ö//Ü/', 1, 'Rechnung-Ae/Oe/Ue', 'transliterated, no double or trailing slash'],
    ['R'.repeat(40), 1, 'R'.repeat(35), 'cut to 35'],
    ['R'.repeat(40), 2, `${'R'.repeat(33)}-2`, 'cut to make room for the attempt'],
    ['李 明', 1, TX.replace(/-/g, ''), 'nothing usable: the transaction id'],
    [null, 1, TX.replace(/-/g, ''), 'no number: the transaction id'],
  ] as [string | null, number, string, string][])('%s (attempt %i) → %s: %s', (number, attempt, expected) => {
    expect(endToEndId(number, attempt, TX, new Set())).toBe(expected);
  });

  it('never repeats an id within a file', () => {
    const taken = new Set<string>();
    expect(endToEndId('RE 1', 1, TX, taken)).toBe('RE-1');
    expect(endToEndId('RE-1', 1, TX, taken)).toBe(TX.replace(/-/g, ''));
  });
});

describe('holderName', () => {
  const customer = { companyName: 'Mustermann GmbH', firstName: 'Erika', lastName: 'Mustermann' };
  it('takes the mandate’s account holder, else the company, else the full name', () => {
    expect(holderName({ accountHolder: 'Max Müller' }, customer)).toBe('Max Müller');
    expect(holderName({ accountHolder: '李明' }, customer)).toBe('Mustermann GmbH');
    expect(holderName({}, { ...customer, companyName: null })).toBe('Erika Mustermann');
    expect(holderName(null, { companyName: null, firstName: null, lastName: null })).toBe('');
  });
});

describe('writeLeavingOut', () => {
  const creditor = { name: 'Acme GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', creditorId: 'DE98ZZZ09999999999' };
  const debit = (n: number, name: string) => ({ endToEndId: `E${n}`, amount: '1.00', mandateId: `M${n}`, mandateSignedOn: '2026-01-01', debtor: { name, iban: 'DE02120300000000202051' } });
  const write = (items: ReturnType<typeof debit>[], overrides: Partial<typeof creditor> = {}) => {
    const skipped: string[] = [];
    const result = writeLeavingOut(
      items,
      (all) => [all.filter((d) => d.endToEndId !== 'E3'), all.filter((d) => d.endToEndId === 'E3')].filter((g) => g.length > 0),
      (groups) => pain008Xml({ messageId: 'M', createdAt: new Date('2026-11-23T09:00:00Z'), creditor: { ...creditor, ...overrides }, groups: groups.map((debits, i) => ({ collectionDate: '2026-11-24', sequenceType: i ? 'RCUR' : 'FRST', debits })) }, 'pain.008.001.02'),
      (d, reason) => skipped.push(`${d.endToEndId}: ${reason}`),
    );
    return { result, skipped };
  };

  it('leaves out the items the writer refuses, in any group, and writes the rest', () => {
    const { result, skipped } = write([debit(1, 'Erika'), debit(2, '李'), debit(3, '明'), debit(4, 'Max')]);
    expect(result!.written.map((d) => d.endToEndId)).toEqual(['E1', 'E4']);
    expect(skipped).toEqual(['E2: debtor.name: Must contain at least one letter or digit of the SEPA character set.', 'E3: debtor.name: Must contain at least one letter or digit of the SEPA character set.']);
    expect(result!.xml).toContain('<NbOfTxs>2</NbOfTxs>');
  });

  it('writes nothing when nothing is left', () => {
    expect(write([debit(2, '李')]).result).toBeNull();
  });

  it('names the setting when the tenant’s own data is refused', () => {
    let error: unknown;
    try {
      write([debit(1, 'Erika')], { name: '李', bic: 'NOTABIC' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).violations!.map((v) => `${v.propertyPath}: ${v.code}`)).toEqual(['seller.name: text_empty', 'bankAccount.bic: invalid_bic']);
    expect(error).not.toBeInstanceOf(SepaInputError);
  });
});
