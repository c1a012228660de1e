import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTenant } from '../../src/db/directory';
import type { Env, MailJob } from '../../src/env';
import { consumeMailJobs, deliverMail, MAX_MAIL_ATTEMPTS, sweepPendingMail } from '../../src/services/mail/delivery';
import { createServiceContext } from '../../src/services/context';
import { resendInvoice } from '../../src/services/invoices/sending';
import { requestOtp } from '../../src/services/platform/customer-otp';
import { put, query, sweepOf, type TestTenant } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import type { FakeMail, FakeMailCall } from '../support/brevo-fake';
import { finalizedInvoice, SETTINGS } from '../documents/builders';

// The mail port's provider adapter (docs/decisions.md, Mail) against the local Brevo fake
// (test/support/brevo-fake.ts, the MAIL_API binding): a context of this file's own is switched to
// `brevo`, its queue captured, and the consumer's step (`deliverMail`) run by the test.

const FROM = 'billing@example.com';

async function brevoAccount(): Promise<string> {
  const res = await env.MAIL_API!.fetch('http://brevo.fake/__fake/accounts', { method: 'POST' });
  return ((await res.json()) as { apiKey: string }).apiKey;
}
const fake = async <T,>(apiKey: string, path: string, body?: unknown): Promise<T> =>
  (await env.MAIL_API!.fetch(`http://brevo.fake/__fake/${path}`, { method: body ? 'POST' : 'GET', headers: { 'api-key': apiKey, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<T>;
const sentMails = (apiKey: string) => fake<FakeMail[]>(apiKey, 'mails');
const calls = (apiKey: string) => fake<FakeMailCall[]>(apiKey, 'calls');
const fault = (apiKey: string, f: { status: number; reset?: number; times?: number }) => fake(apiKey, 'faults', f);

/** This deployment as production runs it: Brevo with `apiKey`, the mail queue captured in `jobs`. */
function brevoEnv(apiKey: string, jobs: MailJob[] = []): Env {
  const queue = {
    send: async (body: MailJob) => void jobs.push(body),
    sendBatch: async (batch: { body: MailJob }[]) => void jobs.push(...batch.map((m) => m.body)),
  } as unknown as Queue<MailJob>;
  return { ...(env as unknown as Env), MAIL_PROVIDER: 'brevo', BREVO_API_KEY: apiKey, MAIL_FROM: FROM, MAIL_JOBS: queue };
}

/** A tenant, a Brevo account (or a key Brevo does not know) and this file's production-like env. */
async function brevoSetup(apiKey?: string) {
  const key = apiKey ?? (await brevoAccount());
  const jobs: MailJob[] = [];
  return { t: await createTenant(), key, jobs, e: brevoEnv(key, jobs) };
}

async function brevoContext(t: TestTenant, e: Env) {
  const found = (await openTenant(env as unknown as Env, t.id))!;
  return createServiceContext({ env: e, db: found.db, tenant: found.tenant });
}

const row = async (t: TestTenant, id: string) =>
  (await query<{ status: string; body: string; attempts: number; last_error: string | null; provider_message_id: string | null; next_attempt_at: string | null; sent_at: string | null }>(t, 'SELECT * FROM outgoing_mails WHERE tenant_id = ? AND id = ?', t.id, id))[0]!;

async function pendingMail(t: TestTenant, e: Env, jobs: MailJob[], to = 'ada@example.com'): Promise<MailJob> {
  const ctx = await brevoContext(t, e);
  await ctx.mailer.send({ tenantId: t.id, to, subject: 'Hello', body: 'Your code is 123456.', attachments: [] });
  return jobs.at(-1)!;
}

afterEach(() => vi.restoreAllMocks());

describe('the Brevo adapter', () => {
  it('sends an invoice mail once: sender, recipient, text, the PDF and XML as base64 attachments, the mail id as Idempotency-Key', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    const c = await createCustomer(t, { invoiceEmail: 'ap@example.com' });
    const invoice = await finalizedInvoice(t, c.id);
    const key = await brevoAccount();
    const jobs: MailJob[] = [];
    const e = brevoEnv(key, jobs);

    await resendInvoice(await brevoContext(t, e), invoice.id);
    // Nothing left the service while the request ran: the mail waits, announced on the queue.
    expect(jobs).toEqual([{ tenantId: t.id, mailId: expect.any(String) }]);
    expect(await row(t, jobs[0]!.mailId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await sentMails(key)).toEqual([]);

    const outcome = await deliverMail(e, jobs[0]!);
    expect(outcome).toMatchObject({ outcome: 'sent' });
    const [mail] = await sentMails(key);
    const tenantName = (await query<{ name: string }>(t, 'SELECT name FROM tenants WHERE id = ?', t.id))[0]!.name;
    expect(mail).toMatchObject({
      idempotencyKey: jobs[0]!.mailId,
      sender: { email: FROM, name: tenantName },
      to: [{ email: 'ap@example.com' }],
      subject: invoice.number,
      textContent: `Your document ${invoice.number} is attached.`,
    });
    expect(mail!.attachments.map((a) => [a.name, a.head.slice(0, 5)])).toEqual([
      [`${invoice.number}.pdf`, '%PDF-'],
      [`${invoice.number}.xml`, '<?xml'],
    ]);
    const stored = await env.DOCUMENTS.get(`${JSON.parse((await query<{ attachments: string }>(t, 'SELECT attachments FROM outgoing_mails WHERE id = ?', jobs[0]!.mailId))[0]!.attachments)[0].key}`);
    expect(mail!.attachments[0]!.size).toBe((await stored!.arrayBuffer()).byteLength);
    // Sent: the provider's id is kept, the body dropped.
    expect(await row(t, jobs[0]!.mailId)).toMatchObject({ status: 'sent', attempts: 1, body: '', provider_message_id: mail!.messageId, last_error: null });

    // The same message again (a redelivery): nothing more goes out.
    expect(await deliverMail(e, jobs[0]!)).toEqual({ outcome: 'skipped' });
    expect(await calls(key)).toHaveLength(1);
  });

  it('a worker that died after Brevo took the mail: the stale claim is taken over, and the same Idempotency-Key sends nothing twice', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const job = await pendingMail(t, e, jobs);
    expect(await deliverMail(e, job)).toMatchObject({ outcome: 'sent' });
    // As if the worker had died before recording it: sending, claimed long ago.
    await query(t, "UPDATE outgoing_mails SET status = 'sending', body = 'Your code is 123456.', next_attempt_at = ? WHERE id = ?", '2000-01-01T00:00:00.000Z', job.mailId);
    // A fresh claim is left alone.
    const fresh = await pendingMail(t, e, jobs, 'bo@example.com');
    await query(t, "UPDATE outgoing_mails SET status = 'sending', next_attempt_at = ? WHERE id = ?", new Date().toISOString(), fresh.mailId);
    expect(await deliverMail(e, fresh)).toEqual({ outcome: 'skipped' });

    expect(await deliverMail(e, job)).toMatchObject({ outcome: 'sent' });
    expect((await calls(key)).map((c) => c.replayed)).toEqual([false, true]);
    expect(await sentMails(key)).toHaveLength(1);
    expect(await row(t, job.mailId)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it.each([
    { name: '400 (a mail Brevo refuses): failed for good', f: { status: 400 }, outcome: 'failed', status: 'failed', error: /400 invalid_parameter/ },
    { name: '403: failed for good', f: { status: 403 }, outcome: 'failed', status: 'failed', error: /403/ },
    { name: '500: tried again in 30 s', f: { status: 500 }, outcome: 'retry', status: 'pending', delay: 30, error: /500 internal_error/ },
    { name: '503: tried again', f: { status: 503 }, outcome: 'retry', status: 'pending', delay: 30, error: /503/ },
    { name: '429 (window resets in 7 s): tried again on the schedule', f: { status: 429 }, outcome: 'retry', status: 'pending', delay: 30, error: /429 too_many_requests/ },
    { name: 'no answer (the connection fails): tried again', f: null, outcome: 'retry', status: 'pending', delay: 30, error: /did not answer/ },
  ])('$name', async ({ f, outcome, status, delay, error }) => {
    const { t, key, jobs, e: sending } = await brevoSetup();
    const job = await pendingMail(t, sending, jobs);
    if (f) await fault(key, f);
    const lost = { fetch: async () => Promise.reject(new TypeError('Network connection lost.')) } as unknown as Fetcher;
    const e = f ? sending : { ...sending, MAIL_API: lost };
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const result = await deliverMail(e, job, new Date('2030-01-01T00:00:00.000Z'));
    expect(result.outcome).toBe(outcome);
    if (delay !== undefined) expect(result).toMatchObject({ delaySeconds: delay });
    const r = await row(t, job.mailId);
    expect(r).toMatchObject({ status, attempts: 1 });
    expect(r.last_error).toMatch(error);
    // A mail to try again keeps its body; one given up drops it.
    expect(r.body).toBe(status === 'pending' ? 'Your code is 123456.' : '');
    if (status === 'pending') expect(r.next_attempt_at).toBe(new Date(Date.parse('2030-01-01T00:00:00.000Z') + delay! * 1000).toISOString());
    expect(await sentMails(key)).toEqual([]);
  });

  it('429 waits as long as Brevo’s x-sib-ratelimit-reset says when that is longer than the schedule', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const job = await pendingMail(t, e, jobs);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await fault(key, { status: 429, reset: 90 });
    expect(await deliverMail(e, job)).toMatchObject({ outcome: 'retry', delaySeconds: 90 });
  });

  it(`gives a mail up after ${MAX_MAIL_ATTEMPTS} tries Brevo could not take`, async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const job = await pendingMail(t, e, jobs);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await fault(key, { status: 500, times: MAX_MAIL_ATTEMPTS });
    const outcomes: string[] = [];
    for (let i = 0; i < MAX_MAIL_ATTEMPTS; i++) outcomes.push((await deliverMail(e, job)).outcome);
    expect(outcomes).toEqual([...Array(MAX_MAIL_ATTEMPTS - 1).fill('retry'), 'failed']);
    expect(await row(t, job.mailId)).toMatchObject({ status: 'failed', attempts: MAX_MAIL_ATTEMPTS, body: '' });
    expect(await deliverMail(e, job)).toEqual({ outcome: 'skipped' });
  });

  it('a fault of our own (storage failing) gives the claim back for the queue to retry, and the mail fails after the last attempt', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const ctx = await brevoContext(t, e);
    await ctx.mailer.send({ tenantId: t.id, to: 'ada@example.com', subject: 'Invoice', body: 'Attached.', attachments: [{ key: `${t.id}/x.pdf`, fileName: 'x.pdf', mimeType: 'application/pdf' }] });
    const broken = { ...e, DOCUMENTS: { get: async () => Promise.reject(new Error('R2 is down')) } as unknown as R2Bucket };
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(deliverMail(broken, jobs[0]!)).rejects.toThrow('R2 is down');
    expect(await row(t, jobs[0]!.mailId)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'R2 is down' });
    await query(t, 'UPDATE outgoing_mails SET attempts = ? WHERE id = ?', MAX_MAIL_ATTEMPTS - 1, jobs[0]!.mailId);
    expect(await deliverMail(broken, jobs[0]!)).toMatchObject({ outcome: 'failed', reason: 'R2 is down' });
    expect(await row(t, jobs[0]!.mailId)).toMatchObject({ status: 'failed', attempts: MAX_MAIL_ATTEMPTS, body: '' });
    expect(await calls(key)).toEqual([]);
  });

  it('an attachment no longer stored fails the mail: sending it without would be another mail', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const ctx = await brevoContext(t, e);
    await ctx.mailer.send({ tenantId: t.id, to: 'ada@example.com', subject: 'Invoice', body: 'Attached.', attachments: [{ key: `${t.id}/gone.pdf`, fileName: 'gone.pdf', mimeType: 'application/pdf' }] });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await deliverMail(e, jobs[0]!)).toMatchObject({ outcome: 'failed' });
    expect((await row(t, jobs[0]!.mailId)).last_error).toMatch(/gone\.pdf is not stored/);
    expect(await calls(key)).toEqual([]);
  });

  it('a wrong API key is a 401 Brevo refuses; the key appears in no log line and no stored row', async () => {
    const secret = `xkeysib-not-known-${crypto.randomUUID()}`;
    const { t, jobs, e } = await brevoSetup(secret);
    const job = await pendingMail(t, e, jobs);
    const logged: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    expect(await deliverMail(e, job)).toMatchObject({ outcome: 'failed' });
    const r = await row(t, job.mailId);
    expect(r).toMatchObject({ status: 'failed' });
    expect(r.last_error).toMatch(/401 unauthorized/);
    expect(logged.join('\n')).toMatch(/401 unauthorized/);
    expect(logged.join('\n')).not.toContain(secret);
    expect(JSON.stringify(await query(t, 'SELECT * FROM outgoing_mails WHERE tenant_id = ?', t.id))).not.toContain(secret);
  });

  it('the consumer acknowledges what is done and puts a mail to retry back on the queue with its delay', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const first = await pendingMail(t, e, jobs, 'one@example.com');
    const second = await pendingMail(t, e, jobs, 'two@example.com');
    await fault(key, { status: 502 });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const messages = [first, second, { nonsense: true }].map((body) => ({ body, ack: vi.fn(), retry: vi.fn() }));
    await consumeMailJobs({ queue: 'edge-billing-mail', messages } as unknown as MessageBatch<MailJob>, e);
    expect(messages[0]!.retry).toHaveBeenCalledWith({ delaySeconds: 30 });
    expect(messages[0]!.ack).not.toHaveBeenCalled();
    expect(messages[1]!.ack).toHaveBeenCalled();
    expect(messages[2]!.ack).toHaveBeenCalled();
    expect((await sentMails(key)).map((m) => m.to[0]!.email)).toEqual(['two@example.com']);
  });

  it('the sweeper queues again the pending mails whose message was lost, not those still in time', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    const lost = await pendingMail(t, e, jobs, 'lost@example.com');
    const inTime = await pendingMail(t, e, jobs, 'soon@example.com');
    await query(t, 'UPDATE outgoing_mails SET next_attempt_at = ? WHERE id = ?', '2000-01-01T00:00:00.000Z', lost.mailId);
    const swept: MailJob[] = [];
    await sweepPendingMail(brevoEnv(key, swept), await sweepOf(t));
    expect(swept).toContainEqual(lost);
    expect(swept).not.toContainEqual(inTime);
  });

  it('a one-time code goes through the same port: its mail is sent by the consumer, not by the request', async () => {
    const { t, key, jobs, e } = await brevoSetup();
    await createCustomer(t, { email: 'ada@example.com', language: 'en' });
    await requestOtp(await brevoContext(t, e), 'ada@example.com');
    expect(await sentMails(key)).toEqual([]);
    expect(await deliverMail(e, jobs[0]!)).toMatchObject({ outcome: 'sent' });
    const [mail] = await sentMails(key);
    expect(mail).toMatchObject({ to: [{ email: 'ada@example.com' }], subject: 'Your login code' });
    expect(mail!.textContent).toMatch(/\b\d{6}\b/);
    // Once Brevo has it, the code is no longer in the database.
    expect(JSON.stringify(await query(t, 'SELECT * FROM outgoing_mails WHERE tenant_id = ?', t.id))).not.toContain(/\b(\d{6})\b/.exec(mail!.textContent!)![1]);
  });
});
