import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateEinvoices } from '../support/oracles.node';

// The judges work: the official validators accept the valid samples and reject each broken one
// for the rule it breaks (test/oracles/README.md). Without this, a validator that cannot run
// would pass everything.

const samples = fileURLToPath(new URL('../oracles/einvoice/samples', import.meta.url));

describe('the e-invoice validators', () => {
  it('accept the valid samples and reject the broken ones for the rule they break', async () => {
    const files = readdirSync(samples).filter((f) => f.endsWith('.xml'));
    const verdicts = await validateEinvoices(
      files.map((f) => ({ name: f.replace(/\.xml$/, ''), xml: readFileSync(`${samples}/${f}`, 'utf8'), xrechnung: f.startsWith('xrechnung') })),
    );
    const summary = Object.fromEntries(Object.entries(verdicts).map(([name, v]) => [name, v.valid ? 'valid' : v.errors.map((e) => e.split(':')[0]).sort().join(', ')]));
    expect(summary).toEqual({
      'cii-broken-total': 'EN16931 BR-CO-15, EN16931 BR-CO-16',
      'cii-valid': 'valid',
      'ubl-broken-totals': 'EN16931 BR-CO-13, EN16931 BR-CO-15',
      'ubl-broken-xsd': 'XSD XSD',
      'ubl-valid': 'valid',
      'xrechnung-broken-no-buyerref': 'XRECHNUNG BR-DE-15',
      'xrechnung-min-cii-valid': 'valid',
      'xrechnung-min-valid': 'valid',
    });
  });
});
