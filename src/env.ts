import type { CartObjectApi } from './objects/cart-object-api';
import type { TenantObjectApi } from './objects/tenant-object-api';

export interface Env {
  /** Shard 0 and the directory (tenant → shard). Further shards are bindings named in D1_SHARDS. */
  DB: D1Database;
  /**
   * The D1 bindings holding tenants' data, comma-separated, DB first ("DB,DB_1"); default "DB".
   * Only ever appended to: the directory names shards by binding (docs/decisions.md, Tenancy and shards).
   */
  D1_SHARDS?: string;
  TENANT: DurableObjectNamespace<TenantObjectApi>;
  /** One CartObject per public checkout cart, named by the cart id (src/objects/cart-object.ts). */
  CART: DurableObjectNamespace<CartObjectApi>;
  DOCUMENTS: R2Bucket;
  EVENTS: Queue<EventMessage>;
  DOCUMENT_JOBS: Queue<DocumentJob>;
  PAYMENT_JOBS: Queue<PaymentJob>;
  /** Mails to send through the provider (src/services/mail/delivery.ts); unused by the `outbox` adapter. */
  MAIL_JOBS: Queue<MailJob>;
  ADMIN_TOKEN: string;
  JWT_SECRET: string;
  /** `fake` (local, tests) or `vies` (production). */
  VAT_CHECKER?: string;
  /** Comma-separated VAT ids the fake VAT checker reports as unregistered. */
  FAKE_VIES_UNREGISTERED?: string;
  /** `ecb` (production) or anything else for the built-in fixture feed. */
  RATE_SOURCE?: string;
  ACCESS_TOKEN_TTL_SECONDS?: string;
  /**
   * The API's public origin (`https://billing.example.com`), for URLs a resource carries (an
   * invoice's usageBreakdownUrl). Unset: the request's origin; outside a request (cron, queues) a
   * path (docs/decisions.md, Response shapes).
   */
  PUBLIC_BASE_URL?: string;
  /** Chunks a background billing run works per invocation (see RUN_BUDGET in src/objects/tenant-object.ts). */
  BILLING_RUN_CHUNKS_PER_INVOCATION?: string;
  /** Subscriptions per chunk of a billing run (default 250; src/services/billing/runs.ts). */
  BILLING_RUN_CHUNK_SIZE?: string;
  REFRESH_TOKEN_TTL_SECONDS?: string;
  /**
   * `queue` (default): a finalized document is rendered by a job on the documents queue.
   * `on_demand`: only when its files are first asked for (a download link, a resend); for
   * bulk imports, and for the benchmark that compares billing with and without rendering.
   */
  DOCUMENT_RENDERING?: string;
  /** Seconds a billing run's render jobs wait before the consumer takes them (default 60). */
  BILLING_RENDER_DELAY_SECONDS?: string;
  /**
   * Key that encrypts gateway credentials at rest (AES-256-GCM): 32 bytes, base64. Set it as a
   * secret in production (`wrangler secret put`); `wrangler dev` reads the development key from
   * .dev.vars (.dev.vars.example), the tests set their own (vitest.workers.config.ts).
   */
  PAYMENT_SECRETS_KEY: string;
  /** Stripe's API origin; default https://api.stripe.com. Tests point it at the local fake. */
  STRIPE_API_BASE?: string;
  /** The card gateway's browser client the checkout page loads; default Stripe.js (https://js.stripe.com/v3/). Browser tests point it at a local fake. */
  CARD_CLIENT_URL?: string;
  /** When bound (tests, local development), Stripe calls go to this service instead of the network. */
  STRIPE_API?: Fetcher;
  /**
   * Where mail goes (docs/decisions.md, Mail): `outbox` (default; local development and tests) keeps
   * every mail in `outgoing_mails`, shown at /dev/mail; `brevo` sends it through Brevo's API.
   */
  MAIL_PROVIDER?: string;
  /** Brevo's API key (`xkeysib-…`): a secret (`wrangler secret put BREVO_API_KEY`), never in wrangler.toml. */
  BREVO_API_KEY?: string;
  /** The sender address of every mail (a sender verified at the provider); its name is the tenant's. */
  MAIL_FROM?: string;
  /** The mail provider's API origin; default https://api.brevo.com. */
  MAIL_API_BASE?: string;
  /** When bound (tests), provider calls go to this service instead of the network. */
  MAIL_API?: Fetcher;
  /** `development` turns on the pages under /dev (the local mail outbox); anything else, or unset, leaves them 404. */
  ENVIRONMENT?: string;
  /** The open-banking provider: `fake` (default; local, tests) — no real provider is wired yet. */
  OPEN_BANKING_PROVIDER?: string;
  /** `queue` (default): finalized invoices with an automatic payment method are collected by a job; `off`: only by API. */
  PAYMENT_COLLECTION?: string;
  /** `1`: count D1 rows read and written and log them per billing run (src/db/meter.ts; benchmarks only). */
  D1_METER?: string;
  /** Days events, their webhook deliveries and shared documents are kept (default 30; src/events/retention.ts). */
  EVENT_RETENTION_DAYS?: string;
  /**
   * Rate limits (docs/decisions.md, Rate limits). The plans and what each allows an API key,
   * `<plan>:<limit>/<seconds>` comma-separated ("free:120/60,standard:1200/60"); plan `free` is
   * enforced by the rate limiting binding LIMITER_PLAN_FREE, whose `simple` limit and period must be
   * these figures (a binding does not tell its own, and the RateLimit headers need them).
   */
  RATE_LIMIT_PLANS?: string;
  /** The plan of a new tenant unless the operator names one; one of RATE_LIMIT_PLANS (default `standard`). */
  DEFAULT_TENANT_PLAN?: string;
  /** Per client address on public routes, `<limit>/<seconds>`: enforced by LIMITER_PUBLIC. */
  RATE_LIMIT_PUBLIC?: string;
  /** Per client address on public routes that make state (a cart, a one-time code): enforced by LIMITER_PUBLIC_CREATE. */
  RATE_LIMIT_PUBLIC_CREATE?: string;
  /** The rate limiting bindings: LIMITER_PLAN_<PLAN> per plan, LIMITER_PUBLIC, LIMITER_PUBLIC_CREATE. */
  [limiter: `LIMITER_${string}`]: RateLimit | undefined;
}

/**
 * A queue message: webhook deliveries to attempt, in order — those of one webhook, published
 * together (up to 100), or one delivery (a retry, a redelivery, a message from before batching).
 */
export type EventMessage = { tenantId: string } & ({ deliveryIds: string[] } | { deliveryId: string });


/** A queue message: send one mail the mail port recorded as pending. */
export interface MailJob {
  tenantId: string;
  mailId: string;
}

/** A queue message: collect one finalized invoice through its automatic payment method (one attempt). */
export interface PaymentJob {
  tenantId: string;
  invoiceId: string;
}

/** A queue message: render and store one finalized document's files, or render and mail a dunning document. */
export type DocumentJob = InvoiceRenderJob | InvoiceRenderBatch | { tenantId: string; dunningDocumentId: string };

/** A queue message: render and store the files of up to 25 finalized documents of one tenant. */
export interface InvoiceRenderBatch {
  tenantId: string;
  invoiceIds: string[];
}

export interface InvoiceRenderJob {
  tenantId: string;
  invoiceId: string;
}
