import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaTypes } from 'edge-billing-client-generator';
import { createBillingClient } from '../../clients/typescript/src/index';
import { server } from '../pages/harness';

// The typed client in clients/typescript against the local Worker the browser tests share: its
// generated types are exactly what the Worker's /openapi.json gives today, and it works as the
// README shows.

const SCHEMA = new URL('../../clients/typescript/src/schema.d.ts', import.meta.url);

describe('the typed TypeScript client', () => {
  it('is generated from the current /openapi.json (else: npm run client:generate)', async () => {
    const document = await (await fetch(`${server().url}/openapi.json`)).json();
    const fresh = await schemaTypes(document);
    const checkedIn = readFileSync(SCHEMA, 'utf8');
    // Compared as a whole, but reported by its first differing line: a 40,000-line diff helps nobody.
    const a = checkedIn.split('\n');
    const b = fresh.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    expect(at === -1 && a.length === b.length, `clients/typescript/src/schema.d.ts is stale from line ${at + 1} (run npm run client:generate): ${JSON.stringify(a[at])} ≠ ${JSON.stringify(b[at])}`).toBe(true);
  });

  it('makes a tenant, a customer and reads it back, typed', async () => {
    const admin = createBillingClient({ baseUrl: server().url, apiKey: server().adminToken });
    const { data: created, error } = await admin.POST('/admin/tenants', {
      body: { name: 'Typed Client GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test' },
    });
    expect(error).toBeUndefined();
    const billing = createBillingClient({ baseUrl: server().url, apiKey: created!.apiKey.key });
    const customer = await billing.POST('/customers', {
      body: { email: 'jane@example.com', firstName: 'Jane', lastName: 'Doe', countryCode: 'DE', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' },
    });
    expect(customer.response.status).toBe(201);
    const read = await billing.GET('/customers/{id}', { params: { path: { id: customer.data!.id } } });
    expect(read.data?.email).toBe('jane@example.com');
    // A refused body comes back as the problem+json, typed as the error.
    const refused = await billing.POST('/customers', { body: { email: 'nope' } });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.violations?.map((v) => v.propertyPath)).toContain('email');
  });
});
