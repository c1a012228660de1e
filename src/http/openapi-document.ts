import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context';
import { PRINCIPAL_TTL_MS } from './principal-cache';
import examples from './openapi-examples.json';

// What /openapi.json says beyond the routes' own schemas: the rules every operation follows (the
// document's description), a description per tag, and recorded examples. The document is the
// reference a reader of /docs and a generated client see, so the rules are spelt out here once
// rather than on each operation (docs/decisions.md, HTTP conventions).

const description = `Subscription billing and invoicing for many tenants: customers, catalogue, subscriptions, usage, invoices and e-invoices, payments, dunning, checkout, offers and webhooks.

## Authentication
Send \`Authorization: Bearer <key>\`: a tenant's API key (\`sk_test_…\` or \`sk_live_…\`, made by \`POST /admin/tenants\` or \`POST /api-keys\`), a customer access token (JWT) on the customer's own routes, or the platform's \`ADMIN_TOKEN\` on \`/admin\` routes. Every id belongs to one tenant: another tenant's id is 404, never its data.

## Errors
Every error is RFC 9457 \`application/problem+json\`: \`{type, title, status, detail, requestId, violations?}\` with a relative \`type\` such as \`/problems/validation-failed\`. A body that parses but breaks rules is **422** with one violation per broken rule (\`propertyPath\`, \`message\`, \`code\`: \`unknown_field\`, \`required\`, \`conflicting_alias\`, …); query and path problems are **400** (an unknown query parameter is \`unknown_parameter\`, never ignored). Bodies are strict: an unknown field is refused. A 5xx never leaves a partial change.

## Idempotency
POST and PUT accept an \`Idempotency-Key\` header. The first answer below 500 is kept for 24 hours and replayed to the same API key (or customer) with \`Idempotent-Replayed: true\`; a reuse with another method, path, query or body is 422 \`idempotency_key_reused\`; a key whose request is still running is 409. A 5xx releases the key, so retrying with the same key is always safe.

## Pagination
Lists answer \`{data: [...], meta: {pagination: {totalItems, itemsPerPage, currentPage, lastPage, pageTotalItems}}}\`. \`page\` counts from 1 (0 is read as 1), \`limit\` is 0 to 100 (default 30).

## Updates
PUT takes the whole writable representation. PATCH takes a JSON merge patch (RFC 7396) sent as \`application/merge-patch+json\` or \`application/json\`: fields present replace, \`null\` clears, absent fields stay; the result is validated exactly like a PUT body.

## Money, dates and time
Amounts are decimal strings in the currency's major unit (\`"19.99"\`), never JSON numbers, on input; date-times are stored and returned in UTC (\`2026-01-15T09:00:00.000Z\`); a date-time without an offset is a wall time in the tenant's time zone. A test-mode tenant has a test clock (\`PUT /test-clock\`): moving it forward bills and dunns everything that became due.

## Consistency and limits
Reads may be served by a nearby read replica: a response that reached the tenant's data carries an \`x-d1-bookmark\` header; send it back as \`x-d1-bookmark\` on the next request to read at least what that response saw (your own writes included). A malformed or foreign bookmark is ignored. Requests are rate limited, an API key by its tenant's plan and public routes by the client address: their responses carry \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers); a refused request is 429 \`rate-limited\` with \`Retry-After\`, and nothing was done. A Worker instance remembers an API key for at most ${PRINCIPAL_TTL_MS / 1000} seconds, so a revoked key may work that long on other instances.

## Webhooks
Events are delivered to your endpoints signed the Standard Webhooks way (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`) and with Fynn's \`X-Webhook-Signature\` (hex HMAC-SHA256 of the body), retried with backoff until answered with 2xx.`;

/** One description per tag, in the order /docs lists them. A tag not named here still shows, undescribed. */
const TAGS: [name: string, description: string][] = [
  ['System', 'Liveness.'],
  ['Platform administration', 'Tenants and their first API key; needs the platform ADMIN_TOKEN.'],
  ['Auth', 'Customer sessions: access and refresh tokens for the customer portal routes.'],
  ['API keys', "The tenant's API keys. A key is shown once, when it is made; it is stored hashed."],
  ['Test clock', "A test-mode tenant's own time. Moving it forward bills everything that became due and runs dunning at the new time."],
  ['Settings', 'Tenant settings: company data, documents (letterhead, logo, e-invoice formats) and payment gateways (Stripe keys).'],
  ['Custom fields', 'Extra fields on customers and other resources, validated by their definition.'],
  ['Customers', 'People and companies you bill: addresses, e-mail addresses, VAT ids, their invoices and subscriptions.'],
  ['Customer groups', 'Groups of customers with shared settings.'],
  ['Contact persons', "A customer's contact persons."],
  ['Product families', 'Groups of products in the catalogue.'],
  ['Units', 'Units of quantity (seat, API call, GB).'],
  ['Measurements', 'What usage is counted in and how it is aggregated over a period (sum, maximum, last value).'],
  ['Cost centres', 'Cost centres for accounting exports.'],
  ['Cancellation reasons', 'Why subscriptions end.'],
  ['Billing groups', 'Customers billed together on one schedule.'],
  ['Taxes', 'Tax groups and rates per country; the rate applied follows the customer (reverse charge for EU businesses with a VAT id).'],
  ['Products', 'What you sell: recurring, metered or one-off, with a tax group and a measurement.'],
  ['Price plans', "A product's price in one currency and interval: flat, per unit, tiered or volume."],
  ['Plans', 'Bundles of products and price plans that a subscription is made from.'],
  ['Coupons', 'Percentage or fixed discounts, once, for some periods or forever.'],
  ['Usage', 'Metered usage events, in batches; billed at the end of their period.'],
  ['Subscriptions', 'A customer on a plan: lifecycle (trial, active, paused, cancelled), changes with proration, and their billing.'],
  ['Subscription items', "A subscription's products, quantities and prices."],
  ['Entitlements', 'What a customer may use now, derived from their subscriptions: features and limits.'],
  ['Invoices', 'Drafts, finalized invoices with gap-free numbers, credit notes and cancellations; each finalized one as PDF and e-invoice (ZUGFeRD/Factur-X, XRechnung, UBL, CII).'],
  ['Payment methods', 'SEPA mandates, cards (Stripe), bank transfer and the testing gateway.'],
  ['Transactions', 'Payments and refunds against invoices.'],
  ['Payments', 'Collecting an invoice with its customer payment method.'],
  ['SEPA XML', 'pain.008 direct-debit and pain.001 credit-transfer files.'],
  ['Bank account transactions', 'Imported bank statements (camt.053/054) and their automatic matching to invoices.'],
  ['Open banking', 'Bank accounts read through an open-banking provider.'],
  ['Dunning', 'Overdue invoices: reminders and dunning letters with fees, as PDFs mailed to the customer.'],
  ['Billing runs', 'Billing of every subscription that became due, in chunks.'],
  ['Exchange rates', 'Rates used to show amounts in the tenant currency.'],
  ['Webhooks', 'Endpoints that receive events, signed; deliveries and their retries.'],
  ['Checkout links', 'Links to a hosted checkout page selling a plan.'],
  ['Checkout', 'Public carts behind a checkout link, completed once into a customer, a subscription, an invoice and its payment.'],
  ['Offer templates', 'Templates for offers: texts, terms and line items.'],
  ['Offers', 'Offers with their own numbers, recipients with personal links, signing, and the subscription they activate.'],
  ['Public offers', 'The hosted offer page’s API: what a recipient sees and signs.'],
];

type Example = { status: number; body: unknown };
/** Recorded answers of the demo seeding (scripts/demo/record.mjs): `METHOD /path/{template}` → example. */
const recorded = examples as unknown as Record<string, Example>;

const built = new WeakMap<object, unknown>();

/** The OpenAPI 3.1 document of `app`, built once per isolate (it is about a megabyte). */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  let doc = built.get(app);
  if (!doc) built.set(app, (doc = build(app)));
  return doc;
}

function build(app: OpenAPIHono<AppEnv>) {
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'Edge billing API', version: '0.1.0', description },
    tags: TAGS.map(([name, text]) => ({ name, description: text })),
  });
  nullableRefs(doc);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      const example = recorded[`${method.toUpperCase()} ${path}`];
      const content = example && op?.responses?.[String(example.status)]?.content;
      const json = content && (content['application/json'] ?? Object.values(content)[0]);
      if (json && typeof json === 'object' && !('example' in json) && !('examples' in json)) {
        json.examples = { demo: { summary: 'From the demo tenant', value: example.body } };
      }
    }
  }
  return doc;
}

/**
 * The generator writes a nullable reference (`Schema.nullable()`) as `allOf: [{$ref}, {type:
 * ["object", "null"]}]`, which no null satisfies (the reference demands an object) and which typed
 * clients read as "object and (object or null)". It means `anyOf: [{$ref}, {type: "null"}]`.
 */
function nullableRefs(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const n = node as Record<string, unknown>;
  const allOf = n.allOf;
  if (Array.isArray(allOf) && allOf.length === 2) {
    const [ref, nullable] = allOf as Record<string, unknown>[];
    const type = nullable?.type;
    if (ref?.$ref && nullable && Object.keys(nullable).length === 1 && Array.isArray(type) && type.includes('null')) {
      delete n.allOf;
      n.anyOf = [ref, { type: 'null' }];
    }
  }
  for (const value of Object.values(n)) nullableRefs(value);
}
