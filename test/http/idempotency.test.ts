import { describe, expect, it } from 'vitest';
import { api, violations, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant, keyWith } from '../support/builders';

// Idempotency-Key beyond the basics in conventions.test.ts: a key belongs to the principal that
// sent it and to one method, path, query and body; stored replies never hold secrets in clear.

const withKey = (key: string) => ({ 'Idempotency-Key': key });

async function storedReplies(t: TestTenant): Promise<string[]> {
  const rows = await (await dbOf(t)).prepare('SELECT response_body FROM idempotency_keys WHERE tenant_id = ?').bind(t.id).all<{ response_body: string | null }>();
  return rows.results.map((r) => r.response_body ?? '');
}

async function finalizedInvoice(t: TestTenant, customerId: string) {
  const draft = await api('/invoices', { token: t.key, body: { customer: customerId, positions: [{ name: 'x', unitPrice: '10', taxRate: '19' }] } });
  const fin = await api(`/invoices/${draft.body.id}/finalize`, { method: 'POST', token: t.key });
  expect(fin.status).toBeLessThan(300);
  return draft.body.id as string;
}

describe('Idempotency-Key scope', () => {
  it("never replays another key's reply: a narrow key cannot obtain the owner's * secret", async () => {
    const t = await createTenant();
    const body = { name: 'root', permissions: ['*'] };
    const owner = await api('/api-keys', { token: t.key, body, headers: withKey('same') });
    expect(owner.status).toBe(201);
    const narrow = await keyWith(t, ['api-key:write']);
    const replayed = await api('/api-keys', { token: narrow, body, headers: withKey('same') });
    expect(replayed.status).toBe(422);
    expect(violations(replayed)).toEqual(['permissions[0]: permission_not_held']);
    expect(replayed.headers.get('Idempotent-Replayed')).toBeNull();
    expect(JSON.stringify(replayed.body)).not.toContain(owner.body.key);
    // The owner's own retry still gets its reply.
    const again = await api('/api-keys', { token: t.key, body, headers: withKey('same') });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(owner.body);
  });

  it("never replays the tenant's reply to a customer session (another customer's download link)", async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const other = await createCustomer(t);
    const theirs = await finalizedInvoice(t, other.id);
    const tenantLink = await api(`/invoices/${theirs}/download-link`, { method: 'PUT', token: t.key, headers: withKey('link') });
    expect(tenantLink.status).toBe(200);
    const session = (await api(`/customers/${me.id}/authenticate`, { method: 'POST', token: t.key })).body.data.accessToken;
    const replay = await api(`/invoices/${theirs}/download-link`, { method: 'PUT', token: session, headers: withKey('link') });
    expect(replay.status).toBe(404);
    expect(JSON.stringify(replay.body)).not.toContain('signature=');
  });

  it('matches the query too: the same key with another ?secondsValid= is 422, not the old link', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await finalizedInvoice(t, c.id);
    const first = await api(`/invoices/${inv}/download-link?secondsValid=60`, { method: 'PUT', token: t.key, headers: withKey('q') });
    expect(first.status).toBe(200);
    const same = await api(`/invoices/${inv}/download-link?secondsValid=60`, { method: 'PUT', token: t.key, headers: withKey('q') });
    expect(same.body).toEqual(first.body);
    const other = await api(`/invoices/${inv}/download-link?secondsValid=3600`, { method: 'PUT', token: t.key, headers: withKey('q') });
    expect(other.status).toBe(422);
    expect(violations(other)).toEqual(['Idempotency-Key: idempotency_key_reused']);
  });
});

describe('stored replies', () => {
  it('hold no API-key secret, access or refresh token in clear, and still replay them to their principal', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const key = await api('/api-keys', { token: t.key, body: { permissions: ['customer:read'] }, headers: withKey('k') });
    const session = await api(`/customers/${c.id}/authenticate`, { method: 'POST', token: t.key, headers: withKey('s') });
    expect(session.status).toBe(201);
    const secrets = [key.body.key, session.body.data.accessToken, session.body.data.refreshToken];
    const stored = await storedReplies(t);
    expect(stored).toHaveLength(2);
    for (const reply of stored) {
      expect(reply).toMatch(/^v1\./);
      for (const secret of secrets) expect(reply).not.toContain(secret);
      expect(reply).not.toContain('sk_test_');
      expect(reply).not.toContain('rt_');
    }
    const replay = await api(`/customers/${c.id}/authenticate`, { method: 'POST', token: t.key, headers: withKey('s') });
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body).toEqual(session.body);
  });

  it('cannot be moved to another key: a reply copied into another row does not open (409, no content)', async () => {
    const t = await createTenant();
    await api('/api-keys', { token: t.key, body: { permissions: ['customer:read'] }, headers: withKey('a') });
    const body = { permissions: ['customer:read'] };
    await api('/api-keys', { token: t.key, body, headers: withKey('b') });
    await (await dbOf(t)).prepare(
      `UPDATE idempotency_keys SET response_body = (SELECT response_body FROM idempotency_keys WHERE tenant_id = ?1 AND key LIKE '% a') WHERE tenant_id = ?1 AND key LIKE '% b'`,
    )
      .bind(t.id)
      .run();
    const res = await api('/api-keys', { token: t.key, body, headers: withKey('b') });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/idempotency-reply-unavailable');
  });
});
