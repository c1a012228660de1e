import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

// What the browser tests share: the local Worker (started once by global-setup.ts), an API client
// for it, a test tenant with something to sell, and Debian's Chromium driven by playwright-core.

export const server = () => inject('checkoutServer');

export interface Reply {
  status: number;
  body: any;
}

/** One API request to the local Worker with the tenant's key, the admin token, or none (public routes). */
export async function api(method: string, path: string, token: string | null, body?: unknown): Promise<Reply> {
  const res = await fetch(server().url + path, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

/** The body of a 2xx answer; anything else fails the test with the answer. */
export async function must(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const r = await api(method, path, token, body);
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

let seq = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export interface Shop {
  tenantId: string;
  key: string;
  link: any;
  /** The hosted page of the link, on the local Worker. */
  pageUrl: string;
  coupon: { code: string };
}

/** A test tenant through the admin API selling seats at 10.00 EUR a seat and month (19 % VAT), and a poster for its key. */
export async function tenantWithSeats(name: string, product = 'Team plan') {
  const created = await must('POST', '/admin/tenants', server().adminToken, { name, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test' });
  const key: string = created.apiKey.key;
  const post = (path: string, body: unknown) => must('POST', path, key, body);
  const family = await post('/product-families', { name: 'Software' });
  const unit = await post('/units', { name: 'Seat', code: 'seat' });
  const measurement = await post('/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const taxGroup = await post('/tax-groups', { type: 'standard' });
  const seats = await post('/catalogue/products', { name: product, type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const price = await post('/price-plans', { product: seats.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
  return { tenantId: created.tenant.id as string, key, post, family, measurement, taxGroup, product: seats, price };
}

/**
 * A test tenant through the admin API, a per-seat monthly plan (10.00 EUR a seat, 19 % VAT), a
 * 20 % coupon for it and a checkout link with an editable quantity and coupons allowed.
 */
export async function createShop(options: { forceCompany?: boolean; trialDays?: number; afterCheckout?: Record<string, unknown> } = {}): Promise<Shop> {
  const { tenantId, key, post, product, price } = await tenantWithSeats('Browser Shop GmbH');
  const code = unique('SAVE20').toUpperCase();
  await post('/coupons', { code, name: '20 % off', type: 'percentage', percentage: 20, frequency: 'once' });
  const link = await post('/checkout-links', {
    slug: unique('team'),
    items: [{ product: product.id, price: price.id, quantity: 2 }],
    options: { trialDays: options.trialDays ?? 0, allowCoupons: true, quantityEditable: true, forceCompany: options.forceCompany ?? false },
    afterCheckout: options.afterCheckout ?? { action: 'confirmation_message', confirmationMessage: 'Welcome aboard!' },
  });
  const path = new URL(link.url).pathname;
  return { tenantId, key, link, pageUrl: server().url + path, coupon: { code } };
}

/** Debian's Chromium (`apt-get install chromium`), headless; root needs --no-sandbox. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({ executablePath, headless: true, args: asRoot ? ['--no-sandbox'] : [] });
}

const SHOTS = join(tmpdir(), 'checkout-page-screenshots');

/** A full-page screenshot in the temp directory; its path is printed so a person can look at it. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  process.stdout.write(`screenshot: ${path}\n`);
  return path;
}

/** A file (a PDF the page made) next to the screenshots, its path printed so a person can look at it. */
export function keepFile(name: string, bytes: Uint8Array): string {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, name);
  writeFileSync(path, bytes);
  process.stdout.write(`file: ${path}\n`);
  return path;
}

/** Polls `read` until `ok` holds (payments are collected by a queue job after the answer). */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every SQLite file under a directory (the local D1 databases of the Worker's state). */
function sqliteFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sqliteFiles(path) : name.endsWith('.sqlite') ? [path] : [];
  });
}

/**
 * The mails the local Worker's mail interface recorded for an address (its outbox table, read from
 * the local D1 files: both shards, whichever holds the tenant), oldest first.
 */
export async function mailsTo(tenantId: string, to: string): Promise<{ subject: string; body: string }[]> {
  const { DatabaseSync } = await import('node:sqlite');
  const mails: { subject: string; body: string; created_at: string }[] = [];
  for (const file of sqliteFiles(server().persistTo)) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const hasTable = db.prepare("SELECT 1 AS ok FROM sqlite_master WHERE type = 'table' AND name = 'outgoing_mails'").get();
      if (hasTable) mails.push(...(db.prepare('SELECT subject, body, created_at FROM outgoing_mails WHERE tenant_id = ? AND "to" = ? ORDER BY created_at, rowid').all(tenantId, to) as typeof mails));
    } finally {
      db.close();
    }
  }
  return mails.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).map(({ subject, body }) => ({ subject, body }));
}
