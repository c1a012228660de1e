// The Drizzle schema, one module per domain. Timestamps are ISO 8601 UTC strings from
// Date#toISOString (fixed width, so they sort as text). Every tenant-owned table carries tenant_id
// and every query filters on it (docs/decisions.md, tenancy).
export * from './platform';
export * from './customers';
export * from './catalogue';
export * from './subscriptions';
export * from './invoices';
export * from './billing';
export * from './events';
export * from './documents';
export * from './payments';
export * from './dunning';
export * from './checkout';
export * from './directory';
export * from './offers';
