import { describe, expect, it } from 'vitest';
import {
  LEGAL_NOTES,
  resolveTax,
  TaxRateUnavailableError,
  vatRate,
  type ResolveTaxInput,
  type ReverseChargeType,
  type TaxGroupType,
} from '../../src/billing/tax';
import { EU_VAT_RATES } from '../../src/reference/eu-vat-rates';
import { EU_COUNTRY_CODES } from '../../src/reference/iso';

const RC = 'Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC)';
const ART_138 = 'Tax-exempt intra-Community supply of goods (Art. 138 Directive 2006/112/EC)';

describe('EU VAT table', () => {
  it('holds exactly the 27 member states, each with periods newest first back to 0000-01-01', () => {
    expect(Object.keys(EU_VAT_RATES).sort()).toEqual([...EU_COUNTRY_CODES].sort());
    expect(Object.keys(EU_VAT_RATES)).toHaveLength(27);
    for (const periods of Object.values(EU_VAT_RATES)) {
      const dates = periods.map((p) => p.effectiveFrom);
      expect(dates).toEqual([...dates].sort().reverse());
      expect(dates.at(-1)).toBe('0000-01-01');
    }
  });
});

describe('vatRate', () => {
  it.each([
    ['DE', 'standard', '2026-03-15', '19'],
    ['DE', 'reduced', '2026-03-15', '7'],
    ['FR', 'standard', '2026-03-15', '20'],
    ['FR', 'reduced', '2026-03-15', '5.5'], // lowest reduced rate, not the super-reduced 2.1
    ['IT', 'reduced', '2026-03-15', '5'],
    ['HU', 'standard', '2026-03-15', '27'],
    ['DK', 'reduced', '2026-03-15', '25'], // no reduced rate in Denmark: standard applies
    ['GR', 'standard', '2026-03-15', '24'],
    ['FI', 'standard', '2026-03-15', '25.5'],
    // Germany's temporary cut from 1 July to 31 December 2020.
    ['DE', 'standard', '2020-06-30', '19'],
    ['DE', 'standard', '2020-07-01', '16'],
    ['DE', 'standard', '2020-12-31', '16'],
    ['DE', 'standard', '2021-01-01', '19'],
    ['DE', 'reduced', '2020-06-30', '7'],
    ['DE', 'reduced', '2020-07-01', '5'],
    ['DE', 'reduced', '2021-01-01', '7'],
    // Finland 24 % → 25.5 % on 1 September 2024.
    ['FI', 'standard', '2024-08-31', '24'],
    ['FI', 'standard', '2024-09-01', '25.5'],
    // Greece 23 % → 24 % on 1 June 2016.
    ['GR', 'standard', '2016-05-31', '23'],
    ['GR', 'standard', '2016-06-01', '24'],
    // Ireland 23 % → 21 % (Sep 2020) → 23 % (Mar 2021).
    ['IE', 'standard', '2020-08-31', '23'],
    ['IE', 'standard', '2020-09-01', '21'],
    ['IE', 'standard', '2021-02-28', '21'],
    ['IE', 'standard', '2021-03-01', '23'],
    // Luxembourg 17 % → 16 % for 2023 → 17 %.
    ['LU', 'standard', '2022-12-31', '17'],
    ['LU', 'standard', '2023-06-01', '16'],
    ['LU', 'standard', '2024-01-01', '17'],
    // Estonia 22 % → 24 % on 1 July 2025; the general reduced rate becomes 13 %.
    ['EE', 'standard', '2025-06-30', '22'],
    ['EE', 'standard', '2025-07-01', '24'],
    ['EE', 'reduced', '2025-07-01', '13'],
  ] as [string, TaxGroupType, string, string][])('%s %s on %s → %s %%', (country, type, date, rate) => {
    expect(vatRate(country, type, date)).toBe(rate);
  });

  it.each([
    ['2020-06-30T23:59:59.999Z', '19'],
    ['2020-07-01T00:00:00.000Z', '16'],
  ])('a Date counts by its UTC day: %s → %s', (iso, rate) => {
    expect(vatRate('DE', 'standard', new Date(iso))).toBe(rate);
  });

  it('refuses EL (a VAT prefix, not a country code), unknown codes and bad dates', () => {
    expect(() => vatRate('EL', 'standard', '2026-01-01')).toThrow(/use GR/);
    expect(() => vatRate('XX', 'standard', '2026-01-01')).toThrow(RangeError);
    expect(() => vatRate('US', 'standard', '2026-01-01')).toThrow(TaxRateUnavailableError);
    expect(() => vatRate('DE', 'standard', '15.03.2026')).toThrow(RangeError);
    expect(() => vatRate('DE', 'standard', new Date(Number.NaN))).toThrow(RangeError);
  });
});

type Row = [
  name: string,
  input: Partial<ResolveTaxInput> & { customerCountry: string },
  expected: { rate: string; category: string; legalNote: string | null; country: string },
];

const base: ResolveTaxInput = {
  taxGroup: { type: 'standard', reverseChargeType: 'REVERSE_CHARGE' },
  sellerCountry: 'DE',
  customerCountry: 'DE',
  vatIdValid: false,
  isBusiness: false,
  taxExempt: 'auto',
  date: '2026-03-15',
};
const group = (type: TaxGroupType, reverseChargeType: ReverseChargeType = 'REVERSE_CHARGE') => ({ type, reverseChargeType });
const b2b = { isBusiness: true, vatIdValid: true };

describe('resolveTax', () => {
  it.each<Row>([
    ['domestic DE, consumer', { customerCountry: 'DE' }, { rate: '19', category: 'S', legalNote: null, country: 'DE' }],
    ['domestic DE, business with a valid VAT id: no reverse charge at home', { customerCountry: 'DE', ...b2b }, { rate: '19', category: 'S', legalNote: null, country: 'DE' }],
    ['domestic DE, reduced group', { customerCountry: 'DE', taxGroup: group('reduced') }, { rate: '7', category: 'S', legalNote: null, country: 'DE' }],
    ['EU B2C to FR: destination rate', { customerCountry: 'FR' }, { rate: '20', category: 'S', legalNote: null, country: 'FR' }],
    ['EU B2C to FR, reduced group', { customerCountry: 'FR', taxGroup: group('reduced') }, { rate: '5.5', category: 'S', legalNote: null, country: 'FR' }],
    ['EU B2C to GR', { customerCountry: 'GR' }, { rate: '24', category: 'S', legalNote: null, country: 'GR' }],
    ['EU B2C from AT to DE, reduced', { sellerCountry: 'AT', customerCountry: 'DE', taxGroup: group('reduced') }, { rate: '7', category: 'S', legalNote: null, country: 'DE' }],
    ['EU B2B to FR with a valid VAT id: reverse charge', { customerCountry: 'FR', ...b2b }, { rate: '0', category: 'AE', legalNote: RC, country: 'FR' }],
    ['EU B2B to FR with a valid VAT id, reduced group: reverse charge', { customerCountry: 'FR', ...b2b, taxGroup: group('reduced') }, { rate: '0', category: 'AE', legalNote: RC, country: 'FR' }],
    ['EU B2B to FR without a valid VAT id: like B2C', { customerCountry: 'FR', isBusiness: true, vatIdValid: false }, { rate: '20', category: 'S', legalNote: null, country: 'FR' }],
    ['valid VAT id but buying as a consumer', { customerCountry: 'FR', isBusiness: false, vatIdValid: true }, { rate: '20', category: 'S', legalNote: null, country: 'FR' }],
    ['EU B2B goods (intra-EU supply)', { customerCountry: 'NL', ...b2b, taxGroup: group('standard', 'REVERSE_CHARGE_INTRA_EU_SUPPLY') }, { rate: '0', category: 'K', legalNote: ART_138, country: 'NL' }],
    ['EU B2B goods without a valid VAT id', { customerCountry: 'NL', isBusiness: true, taxGroup: group('standard', 'REVERSE_CHARGE_INTRA_EU_SUPPLY') }, { rate: '21', category: 'S', legalNote: null, country: 'NL' }],
    ['reverse charge deactivated: destination rate even for B2B', { customerCountry: 'FR', ...b2b, taxGroup: group('standard', 'REVERSE_CHARGE_DEACTIVATED') }, { rate: '20', category: 'S', legalNote: null, country: 'FR' }],
    ['non-EU consumer in the US: export', { customerCountry: 'US' }, { rate: '0', category: 'G', legalNote: LEGAL_NOTES.exportOfServices, country: 'US' }],
    ['non-EU business in CH: export', { customerCountry: 'CH', ...b2b }, { rate: '0', category: 'G', legalNote: LEGAL_NOTES.exportOfServices, country: 'CH' }],
    ['non-EU, goods to CH', { customerCountry: 'CH', taxGroup: group('standard', 'REVERSE_CHARGE_INTRA_EU_SUPPLY') }, { rate: '0', category: 'G', legalNote: 'Tax-exempt export of goods outside the EU (Art. 146 Directive 2006/112/EC)', country: 'CH' }],
    ['non-EU, GB is outside the EU', { customerCountry: 'GB' }, { rate: '0', category: 'G', legalNote: LEGAL_NOTES.exportOfServices, country: 'GB' }],
    ['exempt customer at home', { customerCountry: 'DE', taxExempt: 'exempt' }, { rate: '0', category: 'E', legalNote: 'Tax exempt: the customer is exempt from VAT', country: 'DE' }],
    ['exempt wins over reverse charge', { customerCountry: 'FR', ...b2b, taxExempt: 'exempt' }, { rate: '0', category: 'E', legalNote: LEGAL_NOTES.exempt, country: 'FR' }],
    ['exempt wins over export', { customerCountry: 'US', taxExempt: 'exempt' }, { rate: '0', category: 'E', legalNote: LEGAL_NOTES.exempt, country: 'US' }],
    ['non-EU seller to an EU consumer: destination rate', { sellerCountry: 'US', customerCountry: 'FR' }, { rate: '20', category: 'S', legalNote: null, country: 'FR' }],
    ['non-EU seller, goods to an EU business: reverse charge, not K', { sellerCountry: 'US', customerCountry: 'FR', ...b2b, taxGroup: group('standard', 'REVERSE_CHARGE_INTRA_EU_SUPPLY') }, { rate: '0', category: 'AE', legalNote: RC, country: 'FR' }],
    // A rate change across a date: Germany's temporary 16 % / 5 % in the second half of 2020.
    ['DE domestic on 2020-06-30', { customerCountry: 'DE', date: '2020-06-30' }, { rate: '19', category: 'S', legalNote: null, country: 'DE' }],
    ['DE domestic on 2020-07-01', { customerCountry: 'DE', date: '2020-07-01' }, { rate: '16', category: 'S', legalNote: null, country: 'DE' }],
    ['DE domestic reduced on 2020-12-31', { customerCountry: 'DE', date: '2020-12-31', taxGroup: group('reduced') }, { rate: '5', category: 'S', legalNote: null, country: 'DE' }],
    ['DE domestic reduced on 2021-01-01', { customerCountry: 'DE', date: new Date('2021-01-01T00:00:00Z'), taxGroup: group('reduced') }, { rate: '7', category: 'S', legalNote: null, country: 'DE' }],
    // OSS uses the destination's date-dependent rate: Finland 24 % → 25.5 %.
    ['B2C to FI on 2024-08-31', { customerCountry: 'FI', date: '2024-08-31' }, { rate: '24', category: 'S', legalNote: null, country: 'FI' }],
    ['B2C to FI on 2024-09-01', { customerCountry: 'FI', date: '2024-09-01' }, { rate: '25.5', category: 'S', legalNote: null, country: 'FI' }],
  ])('%s', (_name, input, expected) => {
    expect(resolveTax({ ...base, ...input })).toEqual({ ...expected, taxId: null });
  });

  it('keeps the exact reverse-charge wording', () => {
    expect(LEGAL_NOTES.reverseCharge).toBe(RC);
    expect(LEGAL_NOTES.intraEuSupply).toBe(ART_138);
  });

  describe('tenant overrides', () => {
    it.each([
      ['replaces the table rate', { customerCountry: 'DE', overrides: [{ country: 'DE', type: 'standard', rate: '19.5', taxId: 't1' }] }, '19.5', 'S', 't1'],
      ['only for its type', { customerCountry: 'DE', taxGroup: group('reduced'), overrides: [{ country: 'DE', type: 'standard', rate: '19.5', taxId: 't1' }] }, '7', 'S', null],
      ['only for its country', { customerCountry: 'FR', overrides: [{ country: 'DE', type: 'standard', rate: '19.5', taxId: 't1' }] }, '20', 'S', null],
      ['applies to the OSS destination', { customerCountry: 'FR', overrides: [{ country: 'FR', type: 'standard', rate: '21', taxId: 'fr' }] }, '21', 'S', 'fr'],
      ['not before its validFrom', { customerCountry: 'DE', overrides: [{ country: 'DE', type: 'standard', rate: '21', validFrom: '2026-03-16', taxId: 'later' }] }, '19', 'S', null],
      ['from its validFrom on', { customerCountry: 'DE', date: '2026-03-16', overrides: [{ country: 'DE', type: 'standard', rate: '21', validFrom: '2026-03-16', taxId: 'later' }] }, '21', 'S', 'later'],
      [
        'the latest valid override wins',
        {
          customerCountry: 'DE',
          overrides: [
            { country: 'DE', type: 'standard', rate: '10', taxId: 'always' },
            { country: 'DE', type: 'standard', rate: '12', validFrom: '2026-01-01', taxId: 'jan' },
            { country: 'DE', type: 'standard', rate: '14', validFrom: '2027-01-01', taxId: 'future' },
          ],
        },
        '12',
        'S',
        'jan',
      ],
      ['a 0 % rate is zero rated (Z)', { customerCountry: 'DE', overrides: [{ country: 'DE', type: 'standard', rate: '0', taxId: 'zero' }] }, '0', 'Z', 'zero'],
      ['rate normalised', { customerCountry: 'DE', overrides: [{ country: 'DE', type: 'standard', rate: '7.50', taxId: 'x' }] }, '7.5', 'S', 'x'],
      ['supplies a rate for a non-EU domestic sale', { sellerCountry: 'CH', customerCountry: 'CH', overrides: [{ country: 'CH', type: 'standard', rate: '8.1', taxId: 'ch' }] }, '8.1', 'S', 'ch'],
      ['cannot undo reverse charge', { customerCountry: 'FR', ...b2b, overrides: [{ country: 'FR', type: 'standard', rate: '20', taxId: 'fr' }] }, '0', 'AE', null],
    ] as [string, Partial<ResolveTaxInput> & { customerCountry: string }, string, string, string | null][])(
      '%s',
      (_name, input, rate, category, taxId) => {
        const result = resolveTax({ ...base, ...input });
        expect({ rate: result.rate, category: result.category, taxId: result.taxId }).toEqual({ rate, category, taxId });
      },
    );

    it('rejects an override outside 0..100 or in exponent notation', () => {
      expect(() => resolveTax({ ...base, overrides: [{ country: 'DE', type: 'standard', rate: '101' }] })).toThrow(RangeError);
      expect(() => resolveTax({ ...base, overrides: [{ country: 'DE', type: 'standard', rate: '1e1' }] })).toThrow(RangeError);
      expect(() => resolveTax({ ...base, overrides: [{ country: 'DE', type: 'standard', rate: '-1' }] })).toThrow(RangeError);
    });
  });

  it('has no rate for a non-EU domestic sale without an override', () => {
    expect(() => resolveTax({ ...base, sellerCountry: 'CH', customerCountry: 'CH' })).toThrow(TaxRateUnavailableError);
  });

  it('refuses EL and unknown countries', () => {
    expect(() => resolveTax({ ...base, customerCountry: 'EL' })).toThrow(/use GR/);
    expect(() => resolveTax({ ...base, sellerCountry: 'XX' })).toThrow(RangeError);
  });
});
