import { describe, expect, it } from 'vitest';
import { api, countRows, type TestTenant } from '../support/api';
import { createTenant } from '../support/builders';
import { OWN_XML } from '../fixtures/camt/fixtures';
import { ownStatementScenario } from './builders';

// A statement can be posted as itself (application/xml or text/xml, as banking software exports
// it), up to 20 MB; the same file twice is one import, also through an Idempotency-Key.

const MARCH = OWN_XML['own-statement-2026-03.xml']!;
const postXml = (t: TestTenant, xml: string, contentType = 'application/xml', headers: Record<string, string> = {}) =>
  api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType, headers });

describe('POST /payment/bank-account-transactions/import with the XML as the body', () => {
  it('imports it, and the same bytes again are the same import', async () => {
    const t = await createTenant();
    await ownStatementScenario(t);
    const first = await postXml(t, MARCH);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.import).toMatchObject({ format: 'camt.053.001.02' });
    const lines = await countRows('bank_account_transactions', t);
    expect(lines).toBeGreaterThan(0);
    const again = await postXml(t, MARCH, 'text/xml; charset=utf-8');
    expect(again.status).toBe(200);
    expect(again.body.import.id).toBe(first.body.import.id);
    expect(await countRows('bank_account_transactions', t)).toBe(lines);
  });

  it('an Idempotency-Key tells two files apart by their bytes', async () => {
    const t = await createTenant();
    await ownStatementScenario(t);
    const key = { 'Idempotency-Key': 'statement-upload-1' };
    expect((await postXml(t, MARCH, 'application/xml', key)).status).toBe(201);
    const other = MARCH.replace('OWN-0001', 'OWN-9001');
    expect((await postXml(t, other, 'application/xml', key)).status).toBe(422);
  });

  it('refuses more than 20 MB (413) and other media types (415)', async () => {
    const t = await createTenant();
    const huge = MARCH.replace('</Document>', `<!--${'x'.repeat(21 * 1024 * 1024)}--></Document>`);
    expect((await postXml(t, huge)).status).toBe(413);
    expect((await postXml(t, MARCH, 'text/plain')).status).toBe(415);
    expect(await countRows('bank_statement_imports', t)).toBe(0);
  });
});
