// Requests as the official n8n node (fynnplatform/n8n-nodes-fynn) sends them: its declarative
// defaults put `Accept` and `Content-Type: application/json` on every request, also on GET and
// DELETE without a body and on bodiless PUTs (Content-Length 0); query values are serialised as
// axios 1.x does (spaces as +, brackets and @ percent-encoded). Any 2xx is success to the node.
import { expect } from 'vitest';
import { api, type ApiResponse, type TestTenant } from './api';

/** n8n's request defaults plus the credential's Bearer header. */
export function node(t: TestTenant, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const headers = { Authorization: `Bearer ${t.key}`, Accept: 'application/json', 'Content-Type': 'application/json' };
  if (body !== undefined) return api(path, { method, headers, rawBody: JSON.stringify(body) });
  // A bodiless PUT goes out with Content-Length: 0; GET and DELETE without a body.
  return api(path, { method, headers, ...(method === 'PUT' ? { rawBody: '' } : {}) });
}

/** axios 1.x serialisation of n8n's query object (nested keys as a[b], values as encodeURIComponent with these exceptions). */
export function qs(params: Record<string, string | number | boolean>): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+').replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',');
  return Object.entries(params)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
    .join('&');
}

export function expect2xx(res: ApiResponse) {
  expect(res.status >= 200 && res.status < 300, `${res.status} ${JSON.stringify(res.body)}`).toBe(true);
}

/**
 * "Return All": n8n's offset pagination starts at page=0 with limit=100 and adds 100 to `page`
 * after every full page (a bug of the node, not ours). Returns the items of every page it reads.
 */
export async function returnAll(t: TestTenant, path: string, filters: Record<string, string | number | boolean> = {}): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 0; ; page += 100) {
    const res = await node(t, 'GET', `${path}?${qs({ ...filters, limit: 100, page })}`);
    expect2xx(res);
    expect(Array.isArray(res.body.data), 'the node reads the rootProperty "data"').toBe(true);
    items.push(...res.body.data);
    if (res.body.data.length < 100) return items;
  }
}
