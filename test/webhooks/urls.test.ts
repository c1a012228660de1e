import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publishOutbox } from '../../src/events/publish';
import { api, violations, dbOf, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { consume, deliveries, fake, hook, useFakeReceiver } from './receiver';

// Webhook URLs never reach loopback, private, link-local or metadata addresses: refused when
// registered and again before each delivery (src/lib/outbound-url.ts has the rules, its unit test
// every spelling). Test tenants keep loopback for local development.

useFakeReceiver();

const PRIVATE = [
  'https://127.0.0.1/hook',
  'https://localhost',
  'https://[::1]',
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.1',
  'https://0x7f000001',
  'https://2130706433/',
  'https://017700000001/',
  'https://127.1/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:a9fe:a9fe]/',
  'https://0.0.0.0/',
  'https://app.localhost/',
  'https://192.168.0.10/',
  'https://172.20.0.1/',
  'https://100.64.0.1/',
  'https://[fe80::1]/',
  'https://[fd00:ec2::254]/',
  'https://metadata.google.internal/computeMetadata/v1/',
];

/** Moves a stored webhook's URL past the API's check, as a row written before the rule would be. */
const storeUrl = async (t: TestTenant, webhookId: string, url: string) => (await dbOf(t)).prepare('UPDATE webhooks SET url = ? WHERE id = ?').bind(url, webhookId).run();

describe('webhook URLs', () => {
  it('refuses private, loopback, link-local and metadata hosts of a live tenant, in every numeric spelling', async () => {
    const live = await createTenant({ mode: 'live' });
    for (const url of PRIVATE) {
      const res = await api('/webhooks', { token: live.key, body: { url, events: ['*'] } });
      expect(violations(res), url).toEqual(['url: private_address']);
    }
    const ok = await api('/webhooks', { token: live.key, body: { url: 'https://hooks.example.com/billing', events: ['*'] } });
    expect(ok.status).toBe(201);
    // A change to such a URL is refused the same way, by PUT and by merge patch.
    expect(violations(await api(`/webhooks/${ok.body.id}`, { method: 'PATCH', token: live.key, body: { url: 'https://0x7f000001/' } }))).toEqual(['url: private_address']);
    expect(violations(await api(`/webhooks/${ok.body.id}`, { method: 'PUT', token: live.key, body: { url: 'https://[::1]/', events: ['*'] } }))).toEqual(['url: private_address']);
    expect((await api(`/webhooks/${ok.body.id}`, { token: live.key })).body.url).toBe('https://hooks.example.com/billing');
  });

  it('lets a test tenant use localhost, and nothing else that is not public', async () => {
    const t = await createTenant();
    for (const url of ['http://localhost:9/hook', 'http://127.0.0.1:3000/hook', 'http://[::1]:8080/hook', 'https://localhost/hook']) {
      expect((await api('/webhooks', { token: t.key, body: { url, events: ['*'] } })).status, url).toBe(201);
    }
    expect(violations(await api('/webhooks', { token: t.key, body: { url: 'https://169.254.169.254/latest/meta-data', events: ['*'] } }))).toEqual(['url: private_address']);
    expect(violations(await api('/webhooks', { token: t.key, body: { url: 'http://10.0.0.1/', events: ['*'] } }))).toEqual(['url: https_required', 'url: private_address']);
  });

  it('fails a delivery to a refused URL without sending it, and disables the webhook', async () => {
    const live = await createTenant({ mode: 'live' });
    const created = await api('/webhooks', { token: live.key, body: { url: 'https://hooks.example.com/billing', events: ['customer.created'] } });
    await storeUrl(live, created.body.id, 'https://0x7f000001/latest/meta-data');
    await createCustomer(live);
    await publishOutbox(env, live.id);
    await consume();
    expect(fake.fetched).toEqual([]);
    const [d] = await deliveries(live, created.body.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_response_code: null, next_attempt_at: null });
    expect(d!.last_error).toBe('url refused: 127.0.0.1 is a loopback address; only public hosts are allowed.');
    expect((await api(`/webhooks/${created.body.id}`, { token: live.key })).body).toMatchObject({ enabled: false, disabledReason: d!.last_error });
    // Enabling it again without a public URL is refused.
    expect(violations(await api(`/webhooks/${created.body.id}`, { method: 'PATCH', token: live.key, body: { enabled: true } }))).toEqual(['url: private_address']);
  });

  it('holds a test tenant to the same rule at delivery time, loopback aside', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    await storeUrl(t, w.id, 'http://169.254.169.254/latest/meta-data');
    await createCustomer(t);
    await publishOutbox(env, t.id);
    await consume();
    expect(fake.fetched).toEqual([]);
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'failed', last_error: expect.stringMatching(/^url refused: .*169\.254\.169\.254 is a link-local/) });
  });

  it('records an unreachable public host as a failed attempt to retry (tests have no network)', async () => {
    const t = await createTenant();
    const w = await hook(t, { url: 'https://hooks.example.com/billing', events: ['customer.created'] });
    await createCustomer(t);
    await publishOutbox(env, t.id);
    await consume();
    expect(fake.fetched).toEqual(['https://hooks.example.com/billing']);
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'pending', attempts: 1, last_response_code: null, last_error: 'network access is disabled in tests (https://hooks.example.com/billing)' });
  });
});
