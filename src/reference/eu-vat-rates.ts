// EU VAT rates of the 27 member states, generated from ibericode/vat-rates' vat-rates.json (format
// version 4); do not edit by hand, regenerate from that JSON instead.
//
// Source: ibericode/vat-rates, https://github.com/ibericode/vat-rates
// Copyright 2019 Danny van Kooten. MIT License: Permission is hereby granted, free of charge, to
// any person obtaining a copy of this software and associated documentation files (the "Software"),
// to deal in the Software without restriction, including without limitation the rights to use,
// copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
// permit persons to whom the Software is furnished to do so, subject to the following conditions:
// The above copyright notice and this permission notice shall be included in all copies or
// substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
// KIND, EXPRESS OR IMPLIED. (Full text: ibericode-vat-rates.LICENSE beside this file.)
//
// Choices made while generating:
// - Only the 27 EU member states (GB and others in the source are left out); keyed by ISO 3166
//   country code, so Greece is GR (EL is only its VAT-number prefix).
// - `reduced` is the lowest of the source's reduced rates (`reduced`, `reduced1`, `reduced2`);
//   super-reduced, parking and special rates (EE press_publications) are never used as `reduced`.
//   Denmark has no reduced rate (`reduced: null`).
// - Regional exceptions of the source (postcode-based: Canary Islands, Heligoland, Büsingen,
//   Livigno, Campione d'Italia, Mount Athos, French overseas departments, Madeira, Azores, Jungholz,
//   Mittelberg, Ceuta, Melilla) are not included; a tenant can override rates instead.
// - Rates are percent as decimal strings ("25.5"); never a JS number.

/** The rates of one member state from `effectiveFrom` (inclusive) until the next period starts. */
export interface EuVatPeriod {
  /** First day the rates apply, ISO date; '0000-01-01' means since before the data begins. */
  readonly effectiveFrom: string;
  /** Standard rate, percent. */
  readonly standard: string;
  /** The reduced rate for tax groups of type reduced: the lowest reduced rate; null when there is none. */
  readonly reduced: string | null;
  /** Every reduced rate of the period, ascending (informational). */
  readonly reducedRates: readonly string[];
  /** Super-reduced rate, if any (informational, never chosen automatically). */
  readonly superReduced: string | null;
}

/** VAT periods per EU member state (ISO 3166 code), newest first. */
export const EU_VAT_RATES: Readonly<Record<string, readonly EuVatPeriod[]>> = {
  AT: [
    { effectiveFrom: '2016-01-01', standard: '20', reduced: '10', reducedRates: ['10', '13'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '20', reduced: '10', reducedRates: ['10'], superReduced: null },
  ],
  BE: [
    { effectiveFrom: '0000-01-01', standard: '21', reduced: '6', reducedRates: ['6', '12'], superReduced: null },
  ],
  BG: [
    { effectiveFrom: '0000-01-01', standard: '20', reduced: '9', reducedRates: ['9'], superReduced: null },
  ],
  CY: [
    { effectiveFrom: '0000-01-01', standard: '19', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
  ],
  CZ: [
    { effectiveFrom: '2024-01-01', standard: '21', reduced: '12', reducedRates: ['12'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '21', reduced: '10', reducedRates: ['10', '15'], superReduced: null },
  ],
  DE: [
    { effectiveFrom: '2021-01-01', standard: '19', reduced: '7', reducedRates: ['7'], superReduced: null },
    { effectiveFrom: '2020-07-01', standard: '16', reduced: '5', reducedRates: ['5'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '19', reduced: '7', reducedRates: ['7'], superReduced: null },
  ],
  DK: [
    { effectiveFrom: '0000-01-01', standard: '25', reduced: null, reducedRates: [], superReduced: null },
  ],
  EE: [
    { effectiveFrom: '2025-07-01', standard: '24', reduced: '13', reducedRates: ['13'], superReduced: null },
    { effectiveFrom: '2025-01-01', standard: '22', reduced: '9', reducedRates: ['9', '13'], superReduced: null },
    { effectiveFrom: '2024-01-01', standard: '22', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '20', reduced: '9', reducedRates: ['9'], superReduced: null },
  ],
  ES: [
    { effectiveFrom: '0000-01-01', standard: '21', reduced: '10', reducedRates: ['10'], superReduced: '4' },
  ],
  FI: [
    { effectiveFrom: '2024-09-01', standard: '25.5', reduced: '10', reducedRates: ['10', '14'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '24', reduced: '10', reducedRates: ['10', '14'], superReduced: null },
  ],
  FR: [
    { effectiveFrom: '2014-01-01', standard: '20', reduced: '5.5', reducedRates: ['5.5', '10'], superReduced: '2.1' },
    { effectiveFrom: '2012-01-01', standard: '19.6', reduced: '5.5', reducedRates: ['5.5', '7'], superReduced: '2.1' },
    { effectiveFrom: '0000-01-01', standard: '19.6', reduced: '5.5', reducedRates: ['5.5'], superReduced: '2.1' },
  ],
  GR: [
    { effectiveFrom: '2016-06-01', standard: '24', reduced: '6', reducedRates: ['6', '13'], superReduced: null },
    { effectiveFrom: '2016-01-01', standard: '23', reduced: '6', reducedRates: ['6', '13.5'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '23', reduced: '6.5', reducedRates: ['6.5', '13'], superReduced: null },
  ],
  HR: [
    { effectiveFrom: '0000-01-01', standard: '25', reduced: '5', reducedRates: ['5', '13'], superReduced: null },
  ],
  HU: [
    { effectiveFrom: '0000-01-01', standard: '27', reduced: '5', reducedRates: ['5', '18'], superReduced: null },
  ],
  IE: [
    { effectiveFrom: '2021-03-01', standard: '23', reduced: '9', reducedRates: ['9', '13.5'], superReduced: '4.8' },
    { effectiveFrom: '2020-09-01', standard: '21', reduced: '9', reducedRates: ['9', '13.5'], superReduced: '4.8' },
    { effectiveFrom: '0000-01-01', standard: '23', reduced: '9', reducedRates: ['9', '13.5'], superReduced: '4.8' },
  ],
  IT: [
    { effectiveFrom: '0000-01-01', standard: '22', reduced: '5', reducedRates: ['5', '10'], superReduced: '4' },
  ],
  LT: [
    { effectiveFrom: '0000-01-01', standard: '21', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
  ],
  LU: [
    { effectiveFrom: '2024-01-01', standard: '17', reduced: '8', reducedRates: ['8'], superReduced: '3' },
    { effectiveFrom: '2023-01-01', standard: '16', reduced: '7', reducedRates: ['7'], superReduced: '3' },
    { effectiveFrom: '2016-01-01', standard: '17', reduced: '8', reducedRates: ['8'], superReduced: '3' },
    { effectiveFrom: '2015-01-01', standard: '17', reduced: '8', reducedRates: ['8', '14'], superReduced: '3' },
    { effectiveFrom: '0000-01-01', standard: '15', reduced: '6', reducedRates: ['6', '12'], superReduced: '3' },
  ],
  LV: [
    { effectiveFrom: '0000-01-01', standard: '21', reduced: '5', reducedRates: ['5', '12'], superReduced: null },
  ],
  MT: [
    { effectiveFrom: '0000-01-01', standard: '18', reduced: '5', reducedRates: ['5', '7'], superReduced: null },
  ],
  NL: [
    { effectiveFrom: '2019-01-01', standard: '21', reduced: '9', reducedRates: ['9'], superReduced: null },
    { effectiveFrom: '2012-10-01', standard: '21', reduced: '6', reducedRates: ['6'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '19', reduced: '6', reducedRates: ['6'], superReduced: null },
  ],
  PL: [
    { effectiveFrom: '0000-01-01', standard: '23', reduced: '5', reducedRates: ['5', '8'], superReduced: null },
  ],
  PT: [
    { effectiveFrom: '0000-01-01', standard: '23', reduced: '6', reducedRates: ['6', '13'], superReduced: null },
  ],
  RO: [
    { effectiveFrom: '2025-08-01', standard: '21', reduced: '11', reducedRates: ['11'], superReduced: null },
    { effectiveFrom: '2017-01-01', standard: '19', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
    { effectiveFrom: '2016-01-01', standard: '20', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '24', reduced: '5', reducedRates: ['5', '9'], superReduced: null },
  ],
  SE: [
    { effectiveFrom: '0000-01-01', standard: '25', reduced: '6', reducedRates: ['6', '12'], superReduced: null },
  ],
  SI: [
    { effectiveFrom: '0000-01-01', standard: '22', reduced: '5', reducedRates: ['5', '9.5'], superReduced: null },
  ],
  SK: [
    { effectiveFrom: '2025-01-01', standard: '23', reduced: '5', reducedRates: ['5', '19'], superReduced: null },
    { effectiveFrom: '2011-01-01', standard: '20', reduced: '10', reducedRates: ['10'], superReduced: null },
    { effectiveFrom: '0000-01-01', standard: '19', reduced: '10', reducedRates: ['10'], superReduced: null },
  ],
};
