import { describe, expect, it } from 'vitest';
import { api, post, type TestTenant } from '../support/api';
import { createCustomer, createTenant, created } from '../support/builders';
import { validateJsonSchema } from '../support/json-schema';

// The OpenAPI document read as a generated client or validator reads it: every pattern is a
// pattern (no JavaScript flags), no request schema is unsatisfiable, and the bodies the server
// accepts validate against the document (and some it refuses do not).

async function document() {
  return (await api('/openapi.json')).body;
}

/** Every `pattern` in the document with where it is. */
function patterns(node: unknown, path = ''): { path: string; pattern: string }[] {
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [{ path, pattern: value }] : patterns(value, `${path}/${key}`),
  );
}

function requestSchema(doc: any, method: string, path: string, mediaType = 'application/json') {
  const schema = doc.paths[path]?.[method]?.requestBody?.content?.[mediaType]?.schema;
  if (!schema) throw new Error(`${method} ${path} has no ${mediaType} body`);
  return schema;
}

describe('OpenAPI document', () => {
  it('has no pattern carrying JavaScript regex flags, and every pattern compiles', async () => {
    const found = patterns(await document());
    expect(found.length).toBeGreaterThan(10);
    for (const { path, pattern } of found) {
      expect(pattern, path).not.toMatch(/\/[dgimsuvy]*$/);
      expect(() => new RegExp(pattern, 'u'), path).not.toThrow();
    }
  });

  it('never combines closed object schemas with allOf (no body could satisfy both)', async () => {
    const doc = await document();
    const resolve = (s: any) => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
    const offenders: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const allOf = (node as any).allOf as unknown[] | undefined;
      if (allOf && allOf.map(resolve).filter((s: any) => s?.additionalProperties === false).length > 0 && allOf.length > 1) offenders.push(path);
      for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
    };
    walk(doc, '');
    expect(offenders).toEqual([]);
  });

  it('documents the subscription status filter as the enum the server enforces', async () => {
    const doc = await document();
    const status = doc.paths['/subscriptions'].get.parameters.find((p: any) => p.name === 'status');
    expect(validateJsonSchema(doc, status.schema, 'active')).toEqual([]);
    expect(validateJsonSchema(doc, status.schema, '')).toEqual([]);
    expect(validateJsonSchema(doc, status.schema, 'bogus')).not.toEqual([]);
    const t = await createTenant();
    expect((await api('/subscriptions?status=bogus', { token: t.key })).status).toBe(400);
    expect((await api('/subscriptions?status=', { token: t.key })).status).toBe(200);
  });
});

describe('request bodies: the document accepts what the server accepts', () => {
  /** Validates the body against the documented schema, then sends it: both must accept it. */
  async function acceptedByBoth(t: TestTenant, doc: any, path: string, docPath: string, body: unknown) {
    expect(validateJsonSchema(doc, requestSchema(doc, 'post', docPath), body)).toEqual([]);
    return created(post(t, path, body));
  }

  it('FeatureWrite and PlanWrite codes (mixed case), AddressWrite, CouponWrite, ApiKeyCreate, CustomerCreate', async () => {
    const doc = await document();
    const t = await createTenant();
    await acceptedByBoth(t, doc, '/entitlement/features', '/entitlement/features', { code: 'Single-Sign.On_2', name: 'SSO', type: 'switch' });
    const family = await created(post(t, '/product-families', { name: 'Software' }));
    await acceptedByBoth(t, doc, '/plans', '/plans', { family: family.id, code: 'Pro_2026-monthly', name: 'Pro' });
    const customer = await createCustomer(t);
    await acceptedByBoth(t, doc, `/customers/${customer.id}/addresses`, '/customers/{id}/addresses', {
      type: 'TYPE_INVOICE',
      street: 'Nebenstraße',
      houseNumber: '5',
      zip: '50667',
      city: 'Köln',
      countryCode: 'DE',
      default: false,
    });
    await acceptedByBoth(t, doc, '/coupons', '/coupons', { code: 'TEN', name: 'Ten off', type: 'fixed_amount', fixedAmount: { amount: '10.00', currencyCode: 'EUR' }, frequency: 'once' });
    // A date-time without an offset (n8n's date picker) is documented as accepted.
    await acceptedByBoth(t, doc, '/api-keys', '/api-keys', { name: 'n8n', permissions: ['customer:read'], expiresAt: '2099-01-15T10:00:00' });
    await acceptedByBoth(t, doc, '/customers', '/customers', { email: 'doc@example.com', countryCode: 'DE', firstName: 'Ada' });
  });

  it('refuses in the document what the server refuses: leading zeros, JS numbers for decimals, wrong codes', async () => {
    const doc = await document();
    const coupon = requestSchema(doc, 'post', '/coupons');
    const base = { code: 'TEN', name: 'Ten off', type: 'fixed_amount', frequency: 'once' };
    expect(validateJsonSchema(doc, coupon, { ...base, fixedAmount: { amount: '05.00', currencyCode: 'EUR' } })).not.toEqual([]);
    expect(validateJsonSchema(doc, coupon, { ...base, fixedAmount: { amount: 5, currencyCode: 'EUR' } })).not.toEqual([]);
    expect(validateJsonSchema(doc, requestSchema(doc, 'post', '/entitlement/features'), { code: '-sso', name: 'SSO', type: 'switch' })).not.toEqual([]);
    const t = await createTenant();
    expect((await post(t, '/coupons', { ...base, fixedAmount: { amount: '05.00', currencyCode: 'EUR' } })).status).toBe(422);
    expect((await post(t, '/entitlement/features', { code: '-sso', name: 'SSO', type: 'switch' })).status).toBe(422);
  });
});
