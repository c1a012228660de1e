import { describe, expect, it } from 'vitest';
import { api, countRows, expect422, expectProblem, expectStatus, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { backgroundSettled } from '../../src/lib/background';

// The customer's one-time-code login: POST /public/customer/request-otp {email} and
// POST /public/customer/otp-login {email, code}. Codes go out through the mail interface; the tests
// read them from its local outbox (outgoing_mails). The code is made and mailed after the answer
// (no timing oracle), so the helper waits for that work before the test reads the outbox.

async function requestOtp(t: TestTenant, email: string, headers: Record<string, string> = {}) {
  const res = await api('/public/customer/request-otp', { token: t.key, body: { email }, headers });
  await backgroundSettled();
  return res;
}
const login = (t: TestTenant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api('/public/customer/otp-login', { token: t.key, body, headers });

async function mailsTo(t: TestTenant, to: string) {
  await backgroundSettled();
  return query<{ subject: string; body: string }>(t, 'SELECT subject, body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ? ORDER BY created_at, rowid', t.id, to);
}

/** The code of the latest mail to `to`. */
async function lastCode(t: TestTenant, to: string): Promise<string> {
  const mails = await mailsTo(t, to);
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.body ?? '')?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('POST /public/customer/request-otp', () => {
  it('mails a 6-digit code to the customer and stores only a keyed hash of it', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'ada@example.com', firstName: 'Ada', language: 'en' });
    const res = await requestOtp(t, 'ADA@example.com');
    expectStatus(res, 200);
    expect(res.body).toEqual({ success: true });
    const [mail] = await mailsTo(t, 'ada@example.com');
    expect(mail!.subject).toBe('Your login code');
    expect(mail!.body).toContain('Hello Ada');
    const code = await lastCode(t, 'ada@example.com');
    const [row] = await query<Record<string, unknown>>(t, 'SELECT * FROM customer_otp_codes WHERE tenant_id = ? AND customer_id = ?', t.id, c.id);
    expect(row!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row!.attempts).toBe(0);
  });

  it('answers the same for an unknown address and an archived customer, and mails nothing', async () => {
    const t = await createTenant();
    const archived = await createCustomer(t, { email: 'gone@example.com' });
    expectStatus(await put(t, `/customers/${archived.id}/archive`), 200);
    for (const email of ['nobody@example.com', 'gone@example.com']) {
      const res = await requestOtp(t, email);
      expectStatus(res, 200);
      expect(res.body).toEqual({ success: true });
    }
    expect(await countRows('outgoing_mails', t)).toBe(0);
    expect(await countRows('customer_otp_codes', t)).toBe(0);
  });

  it('answers a customer and a stranger alike: status, body and headers (docs/decisions.md, Mail: no timing oracle)', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    const answers: Awaited<ReturnType<typeof requestOtp>>[] = [];
    for (const email of ['ada@example.com', 'nobody@example.com', 'ADA@example.com']) answers.push(await requestOtp(t, email));
    // The same headers; only the per-request values (its id, the read-your-writes bookmark) differ.
    const shape = (r: (typeof answers)[number]) => ({
      status: r.status,
      body: r.body,
      headers: [...r.headers].map(([name, value]) => [name, ['x-request-id', 'x-d1-bookmark'].includes(name) ? '(per request)' : value]),
    });
    expect(shape(answers[1]!)).toEqual(shape(answers[0]!));
    expect(shape(answers[2]!)).toEqual(shape(answers[0]!));
    expect(answers[0]!.body).toEqual({ success: true });
    // Only the customer got codes (two requests, two mails); the stranger's address got nothing.
    expect(await mailsTo(t, 'ada@example.com')).toHaveLength(2);
    expect(await countRows('outgoing_mails', t, 'AND "to" = ?', 'nobody@example.com')).toBe(0);
  });

  it('sends at most 5 codes an hour to one customer, answering the same', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    for (let i = 0; i < 7; i++) expect((await requestOtp(t, 'ada@example.com')).body).toEqual({ success: true });
    expect(await mailsTo(t, 'ada@example.com')).toHaveLength(5);
    // The hour is over: codes go out again.
    await query(t, 'UPDATE customer_otp_codes SET window_started_at = ? WHERE tenant_id = ?', '2000-01-01T00:00:00.000Z', t.id);
    await requestOtp(t, 'ada@example.com');
    expect(await mailsTo(t, 'ada@example.com')).toHaveLength(6);
  });

  it('422 for a malformed e-mail', async () => {
    const t = await createTenant();
    expect422(await requestOtp(t, 'not-an-email'), ['email']);
  });
});

describe('POST /public/customer/otp-login', () => {
  it('exchanges e-mail and code for the session tokens authenticate issues; they work', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    const res = await login(t, { email: 'Ada@Example.com', code: await lastCode(t, 'ada@example.com') });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, accessToken: expect.any(String), refreshToken: expect.stringMatching(/^rt_/) });
    expect(res.body.data.customerAreaLink).toContain(`#accessToken=${res.body.data.accessToken}`);
    const me = await api(`/customers/${c.id}`, { token: res.body.data.accessToken });
    expectStatus(me, 200);
    expect(me.body.id).toBe(c.id);
    expectStatus(await api('/auth/refresh', { body: { refreshToken: res.body.data.refreshToken } }), 200);
  });

  it('takes the code as otp too', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    expectStatus(await login(t, { email: 'ada@example.com', otp: await lastCode(t, 'ada@example.com') }), 200);
  });

  it('a code works once', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    const code = await lastCode(t, 'ada@example.com');
    expectStatus(await login(t, { email: 'ada@example.com', code }), 200);
    expectProblem(await login(t, { email: 'ada@example.com', code }), 401);
  });

  it('of concurrent logins with one code, exactly one gets a session', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    const code = await lastCode(t, 'ada@example.com');
    const results = await Promise.all(Array.from({ length: 5 }, () => login(t, { email: 'ada@example.com', code })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401]);
    expect(await countRows('customer_sessions', t)).toBe(1);
  });

  it('wrong codes count: after 5, even the right code is refused', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    const code = await lastCode(t, 'ada@example.com');
    for (let i = 0; i < 5; i++) expectProblem(await login(t, { email: 'ada@example.com', code: wrong(code) }), 401);
    expectProblem(await login(t, { email: 'ada@example.com', code }), 401);
    // A new code starts over.
    await requestOtp(t, 'ada@example.com');
    expectStatus(await login(t, { email: 'ada@example.com', code: await lastCode(t, 'ada@example.com') }), 200);
  });

  it('an expired code and a replaced code are refused', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com');
    const first = await lastCode(t, 'ada@example.com');
    await requestOtp(t, 'ada@example.com');
    const second = await lastCode(t, 'ada@example.com');
    if (first !== second) expectProblem(await login(t, { email: 'ada@example.com', code: first }), 401);
    await query(t, 'UPDATE customer_otp_codes SET expires_at = ? WHERE tenant_id = ?', new Date(Date.now() - 1000).toISOString(), t.id);
    expectProblem(await login(t, { email: 'ada@example.com', code: second }), 401);
  });

  it('401 alike for an unknown e-mail, a customer without a code, and an archived customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'ada@example.com' });
    await createCustomer(t, { email: 'bob@example.com' });
    await requestOtp(t, 'ada@example.com');
    const code = await lastCode(t, 'ada@example.com');
    const unknown = await login(t, { email: 'nobody@example.com', code });
    const noCode = await login(t, { email: 'bob@example.com', code });
    expectProblem(unknown, 401);
    expectProblem(noCode, 401);
    expect(unknown.body.detail).toBe(noCode.body.detail);
    expectStatus(await put(t, `/customers/${c.id}/archive`), 200);
    expectProblem(await login(t, { email: 'ada@example.com', code }), 401);
    expect(await countRows('customer_sessions', t)).toBe(0);
  });

  it('422 for a body without a code, or with code and otp at once', async () => {
    const t = await createTenant();
    expect422(await login(t, { email: 'ada@example.com' }), ['code']);
    expect422(await login(t, { email: 'ada@example.com', code: '123456', otp: '123456' }), ['otp']);
  });

  it('stores no reply: an Idempotency-Key is not used on these routes, so tokens are never kept', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    await requestOtp(t, 'ada@example.com', { 'Idempotency-Key': 'otp-1' });
    expectStatus(await login(t, { email: 'ada@example.com', code: await lastCode(t, 'ada@example.com') }, { 'Idempotency-Key': 'otp-2' }), 200);
    expect(await countRows('idempotency_keys', t)).toBe(0);
  });
});

describe('the tenant of the public OTP routes', () => {
  it('comes from X-Tenant-Id when no Bearer credential is sent', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    const res = await api('/public/customer/request-otp', { body: { email: 'ada@example.com' }, headers: { 'X-Tenant-Id': t.id } });
    expectStatus(res, 200);
    const code = await lastCode(t, 'ada@example.com');
    expectStatus(await api('/public/customer/otp-login', { body: { email: 'ada@example.com', code }, headers: { 'X-Tenant-Id': t.id } }), 200);
  });

  it('400 without a tenant or for an unknown one; 401 for a bad Bearer credential', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'ada@example.com' });
    expectProblem(await api('/public/customer/request-otp', { body: { email: 'ada@example.com' } }), 400);
    expectProblem(await api('/public/customer/request-otp', { body: { email: 'ada@example.com' }, headers: { 'X-Tenant-Id': 'unknown' } }), 400);
    expectProblem(await api('/public/customer/request-otp', { token: 'sk_test_invalid', body: { email: 'ada@example.com' }, headers: { 'X-Tenant-Id': t.id } }), 401);
    expect(await countRows('outgoing_mails', t)).toBe(0);
  });

  it('keeps tenants apart: a code is sent and honoured only in the tenant of the customer', async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createCustomer(b, { email: 'ada@example.com' });
    await requestOtp(a, 'ada@example.com');
    expect(await countRows('outgoing_mails', b)).toBe(0);
    await requestOtp(b, 'ada@example.com');
    const code = await lastCode(b, 'ada@example.com');
    expectProblem(await login(a, { email: 'ada@example.com', code }), 401);
    expectStatus(await login(b, { email: 'ada@example.com', code }), 200);
  });
});
