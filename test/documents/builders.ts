// Builders of the documents API tests (test/documents/*.test.ts, except the *.unit.test.ts files):
// finalized invoices and their files, the render job driven from the test, logos and settings.
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { api, download, get, put, query, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { createDb } from '../../src/db/client';
import { tenants } from '../../src/db/schema';
import { eq } from 'drizzle-orm';
import { createServiceContext, type ServiceContext } from '../../src/services/context';
import { renderJob } from '../../src/services/documents/jobs';

// ---------------------------------------------------------------------------------------------
// Settings

/** A real German IBAN (ibantools' example); answered only as `DE89**************3000`. */
export const IBAN = 'DE89370400440532013000';
export const MASKED_IBAN = 'DE89**************3000';
export const BIC = 'COBADEFFXXX';

/** Complete document settings, as a client writes them. */
export const SETTINGS = {
  seller: { name: 'Letterhead GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', vatId: 'DE123456789', email: 'billing@letterhead.example' },
  bankAccount: { iban: IBAN, bic: BIC, accountName: 'Letterhead GmbH', bankName: 'Commerzbank' },
  texts: { de: { invoice: { title: 'Rechnung {number}', introduction: 'Vielen Dank.', closing: 'Mit freundlichen Grüßen' } }, en: { credit_note: { title: 'Credit {number}' } } },
  defaultEInvoiceType: 'cii',
};

// ---------------------------------------------------------------------------------------------
// Invoices and their files

/** A line of a manual invoice: `unitPrice` at 19 % unless told. */
export const line = (unitPrice: string, name = 'Consulting', taxRate = '19') => ({ name, unitPrice, quantity: '1', taxRate });

/** A draft for `customerId` (201). */
export async function draftInvoice(t: TestTenant, customerId: string, positions: unknown[] = [line('100.00')]) {
  const res = await api('/invoices', { token: t.key, body: { customer: customerId, positions } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A finalized invoice (its render job is on the queue, and runs in the background). */
export async function finalizedInvoice(t: TestTenant, customerId: string, positions: unknown[] = [line('100.00')]) {
  const d = await draftInvoice(t, customerId, positions);
  const f = await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key });
  expect(f.status, JSON.stringify(f.body)).toBe(201);
  return f.body;
}

/**
 * The letterhead of a tenant whose documents are e-invoices of every type: SETTINGS with the
 * seller contact XRechnung asks for, and Fynn's default type.
 */
export const LETTERHEAD = {
  ...SETTINGS,
  seller: { ...SETTINGS.seller, contactName: 'Buchhaltung', phone: '+49 30 1234567' },
  defaultEInvoiceType: 'zugferd',
};

/**
 * A fresh tenant with LETTERHEAD, a customer of it with an address (overrides allowed) and a
 * finalized invoice to that customer.
 */
export async function invoiceSetup(customer: Record<string, unknown> = {}) {
  const t = await createTenant();
  await ok(put(t, '/settings/documents', LETTERHEAD));
  const c = await createCustomer(t, { street: 'Kastanienallee', houseNumber: '7', zip: '10435', city: 'Berlin', ...customer });
  const invoice = await finalizedInvoice(t, c.id);
  return { t, c, invoice };
}

/** Runs the render job of a document now, as the queue consumer would. */
export const renderNow = (t: TestTenant, invoiceId: string) => renderJob(env, { tenantId: t.id, invoiceId });

/**
 * The invoice once its files are recorded: polls GET /invoices/{id} until `file` is set (the queue
 * job renders in the background, usually within about a second). Fails after `timeoutMs`.
 */
export async function renderedInvoice(t: TestTenant, id: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const inv = await ok(get(t, `/invoices/${id}`));
    if (inv.file) return inv;
    if (Date.now() > deadline) throw new Error(`invoice ${id} was not rendered within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the background render job of a document has run, whatever its outcome. */
export async function renderSettled(t: TestTenant, id: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await renderState(t, id);
    if (row!.file_id || row!.render_attempts > 0) return row!;
    if (Date.now() > deadline) throw new Error(`the render job of ${id} did not run within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const renderState = (t: TestTenant, id: string) =>
  query<{ file_id: string | null; xml_file_id: string | null; render_attempts: number; render_error: string | null; updated_at: string }>(
    t,
    'SELECT file_id, xml_file_id, render_attempts, render_error, updated_at FROM invoices WHERE tenant_id = ? AND id = ?',
    t.id,
    id,
  );

/** Signed links to a document's files (200). */
export async function downloadLinks(t: TestTenant | string, id: string, secondsValid = 600): Promise<{ url: string; xmlUrl: string | null; expiresAt: string }> {
  const token = typeof t === 'string' ? t : t.key;
  const res = await api(`/invoices/${id}/download-link?secondsValid=${secondsValid}`, { method: 'PUT', token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** GETs a signed (absolute) link like a browser would: path and query only. */
export function fetchLink(url: string) {
  const u = new URL(url);
  return download(`${u.pathname}${u.search}`);
}

/** The R2 objects under a document's prefix, by key. */
export async function storedObjects(t: TestTenant, invoiceId: string) {
  const listed = await env.DOCUMENTS.list({ prefix: `${t.id}/invoices/${invoiceId}/` });
  return listed.objects.map((o) => ({ key: o.key, size: o.size, etag: o.etag, uploaded: o.uploaded.toISOString() }));
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A service context of a tenant, for driving the document services directly. */
export async function contextOf(t: TestTenant): Promise<ServiceContext> {
  const db = createDb((await dbOf(t)));
  const tenant = await db.select().from(tenants).where(eq(tenants.id, t.id)).get();
  return createServiceContext({ env, db, tenant: tenant! });
}

/** A customer session's access token. */
export async function customerSession(t: TestTenant, customerId: string): Promise<string> {
  const res = await api(`/customers/${customerId}/authenticate`, { method: 'POST', token: t.key });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.data.accessToken;
}

// ---------------------------------------------------------------------------------------------
// Images

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

async function zlib(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A valid RGB PNG of one colour, `width` × `height` pixels. */
export async function png(width: number, height: number, rgb: [number, number, number] = [0x20, 0x60, 0xc0]): Promise<Uint8Array> {
  const chunk = (type: string, data: Uint8Array) => {
    const body = new Uint8Array(4 + data.length);
    body.set(new TextEncoder().encode(type));
    body.set(data, 4);
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(body, 4);
    view.setUint32(8 + data.length, crc32(body));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter, not interlaced
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(rgb, y * (1 + width * 3) + 1 + x * 3);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', await zlib(raw)), chunk('IEND', new Uint8Array())];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A baseline JPEG of one grey 8 × 8 block, written out by hand: a quantisation table of ones, a
 * frame of one component, one-code Huffman tables (DC difference 0, end of block) and the scan.
 */
export const JPEG = new Uint8Array([
  ...[0xff, 0xd8], // SOI
  ...[0xff, 0xdb, 0x00, 0x43, 0x00, ...new Array<number>(64).fill(1)], // DQT
  ...[0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00], // SOF0 8×8, 1 component
  ...[0xff, 0xc4, 0x00, 0x14, 0x00, 1, ...new Array<number>(15).fill(0), 0x00], // DHT DC 0: one code, category 0
  ...[0xff, 0xc4, 0x00, 0x14, 0x10, 1, ...new Array<number>(15).fill(0), 0x00], // DHT AC 0: one code, EOB
  ...[0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00], // SOS
  0x3f, // DC "0", EOB "0", padded with ones
  ...[0xff, 0xd9], // EOI
]);

export function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Uploads a logo (200) and answers the settings. */
export async function uploadLogo(t: TestTenant, bytes: Uint8Array, mimeType = 'image/png') {
  return ok(put(t, '/settings/documents/logo', { mimeType, content: base64(bytes) }));
}
