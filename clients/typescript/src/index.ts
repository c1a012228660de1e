// A typed client of the billing API: openapi-fetch over the types openapi-typescript generates from
// /openapi.json (schema.d.ts, `npm run client:generate`). Paths, parameters, bodies and answers are
// checked by the compiler; `data` is the 2xx body, `error` the problem+json of any other status.
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };
export type Schemas = components['schemas'];

export interface BillingClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API is, e.g. http://localhost:8787. */
  baseUrl: string;
  /** A tenant's API key (sk_test_… / sk_live_…), or the admin token for /admin routes. */
  apiKey: string;
}

export function createBillingClient({ baseUrl, apiKey, headers, ...options }: BillingClientOptions) {
  return createClient<paths>({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${apiKey}` } });
}

export type BillingClient = ReturnType<typeof createBillingClient>;
