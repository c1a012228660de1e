// The API client of the workerd tests and the helpers that read its answers and the database.
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { shardSweeps, type ShardSweep } from '../../src/db/directory';
import { binding, shardNames } from '../../src/db/shards';
import { checkContract } from './contract';

export const ADMIN_TOKEN = 'test-admin-token';
const BASE = 'http://billing.test';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Calls the worker's fetch handler like a client over HTTP would. */
export async function api<T = any>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const method = opts.method ?? (opts.body !== undefined || opts.rawBody !== undefined ? 'POST' : 'GET');
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = opts.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
  } else if (opts.contentType) {
    headers['Content-Type'] = opts.contentType;
  }
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Non-JSON bodies (HTML docs) stay text.
  }
  checkContract({ method, path, status: res.status, contentType: res.headers.get('Content-Type'), body: parsed });
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Fetches a file (a PDF, an XML, a CSV) from the worker: its bytes, unparsed. */
export async function download(path: string, opts: { token?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { headers }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

let counter = 0;
/** A unique suffix, so tests (which share storage) never collide. */
export function unique(prefix = 'x'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
}

/** A tenant and its first API key (every permission); made by `createTenant` in builders.ts. */
export interface TestTenant {
  id: string;
  key: string;
}

// ---------------------------------------------------------------------------------------------
// Requests with a tenant's key. A PATCH body goes out as application/merge-patch+json.

export const post = (t: TestTenant, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(path, { token: t.key, method: 'POST', ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
export const put = (t: TestTenant, path: string, body?: unknown) => api(path, { token: t.key, method: 'PUT', ...(body === undefined ? {} : { body }) });
export const patch = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'PATCH', body });
export const get = (t: TestTenant, path: string) => api(path, { token: t.key });
export const del = (t: TestTenant, path: string) => api(path, { token: t.key, method: 'DELETE' });

// ---------------------------------------------------------------------------------------------
// Answers

export function expectStatus(res: ApiResponse, status: number) {
  expect(res.status, `${res.status} ${JSON.stringify(res.body)}`).toBe(status);
}

/** A problem+json answer with the given status (and problem type). */
export function expectProblem(res: ApiResponse, status: number, type?: string) {
  expectStatus(res, status);
  expect(res.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
  if (type) expect(res.body.type).toBe(type);
}

/** Violations of a 422 problem as `path: code` strings, easy to assert on. */
export function violations(res: ApiResponse): string[] {
  return ((res.body?.violations ?? []) as { propertyPath: string; code: string }[]).map((v) => `${v.propertyPath}: ${v.code}`);
}

/** The property paths of a 422 problem, sorted. */
export function paths(res: ApiResponse): string[] {
  return violations(res)
    .map((v) => v.slice(0, v.lastIndexOf(': ')))
    .sort();
}

/** A 422 validation problem with exactly these property paths. */
export function expect422(res: ApiResponse, expectedPaths: string[]) {
  expectProblem(res, 422, '/problems/validation-failed');
  expect(paths(res)).toEqual([...expectedPaths].sort());
}

/** The ids of a collection answer, in list order. */
export const ids = (res: ApiResponse): string[] => (res.body.data as { id: string }[]).map((r) => r.id);

// ---------------------------------------------------------------------------------------------
// The database: two shards (docs/decisions.md, Tenancy and shards), so a tenant's rows are read
// where the directory says they are.

/** The shard (D1 binding name) a tenant lives on, from the directory in shard 0. */
export async function shardOf(t: TestTenant | string): Promise<string> {
  const id = typeof t === 'string' ? t : t.id;
  const row = await env.DB.prepare('SELECT shard FROM tenant_directory WHERE tenant_id = ?').bind(id).first<{ shard: string }>();
  if (!row) throw new Error(`tenant ${id} is not in the directory`);
  return row.shard;
}

/** The D1 database that holds a tenant's rows. */
export async function dbOf(t: TestTenant | string): Promise<D1Database> {
  return binding(env, await shardOf(t));
}

/** The cron's view of a tenant's shard (src/db/directory.ts), for calling a shard's sweep directly. */
export async function sweepOf(t: TestTenant | string): Promise<ShardSweep> {
  const shard = await shardOf(t);
  return (await shardSweeps(env)).find((s) => s.shard === shard)!;
}

/** Every shard's database: for data every shard holds (exchange rates). */
export function everyShard(): D1Database[] {
  return shardNames(env).map((s) => binding(env, s));
}

/** Rows of a SQL query against a tenant's shard. */
export async function query<T = Record<string, unknown>>(t: TestTenant | string, sql: string, ...params: unknown[]): Promise<T[]> {
  const res = await (await dbOf(t))
    .prepare(sql)
    .bind(...params)
    .all<T>();
  return res.results;
}

export interface StoredEvent {
  type: string;
  resourceId: string | null;
  data: any;
}

/** Outbox rows of a tenant (or of one resource) in the order they were written, each with its document (own or shared). */
export async function eventsOf(t: TestTenant, resourceId?: string): Promise<StoredEvent[]> {
  const rows = await query<{ type: string; resource_id: string | null; data: string }>(
    t,
    `SELECT e.type, e.resource_id, coalesce(e.data, d.data) AS data FROM events e LEFT JOIN event_documents d ON d.id = e.document_id
      WHERE e.tenant_id = ? ORDER BY e.created_at, e.rowid`,
    t.id,
  );
  return rows
    .filter((r) => resourceId === undefined || r.resource_id === resourceId)
    .map((r) => ({ type: r.type, resourceId: r.resource_id, data: JSON.parse(r.data) }));
}

/** Rows of a tenant in a table, optionally narrowed by more SQL (`AND …`). */
export async function countRows(table: string, t: TestTenant, extra = '', ...params: unknown[]): Promise<number> {
  const [row] = await query<{ n: number }>(t, `SELECT count(*) AS n FROM ${table} WHERE tenant_id = ? ${extra}`, t.id, ...params);
  return row?.n ?? 0;
}
