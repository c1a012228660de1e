import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { configDefaults, defineProject } from 'vitest/config';
import { oracleService } from './test/support/oracles.node';
import { BrevoFake } from './test/support/brevo-fake';
import { StripeFake } from './test/support/stripe-fake';

// One in-memory Stripe for the whole run; tests make their own account (and keys) in it, so they never meet.
const stripe = new StripeFake();
// One in-memory Brevo (the mail provider); tests make their own account in it.
const brevo = new BrevoFake();

export default defineProject({
  plugins: [
    cloudflareTest(async () => ({
      main: './src/index.ts',
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        compatibilityFlags: ['nodejs_compat', 'service_binding_extra_handlers'],
        // Judges that run in Node (Java validators, poppler), called from tests as env.ORACLES.
        // STRIPE_API: the local fake of Stripe's API (test/support/stripe-fake.ts), which the card adapter calls when bound.
        // MAIL_API: the local fake of Brevo's API (test/support/brevo-fake.ts), which the mail adapter calls when bound
        // (the tests keep MAIL_PROVIDER = outbox; test/mail/ switches a context of its own to brevo).
        serviceBindings: { ORACLES: oracleService, STRIPE_API: stripe.fetch, MAIL_API: brevo.fetch },
        // Rate limits (docs/decisions.md, Rate limits): tenants made by tests are on `enterprise`, far
        // beyond any test's burst; test/http/rate-limit.test.ts moves its tenants to the small plans,
        // and sends CF-Connecting-IP for the public limits (a request without it, as every other test
        // sends, is not limited; the offer tests send a new one per test). Windows of 10 s keep the tests
        // that wait for one short.
        ratelimits: {
          LIMITER_PLAN_FREE: { namespace_id: '1001', simple: { limit: 4, period: 10 } },
          LIMITER_PLAN_STANDARD: { namespace_id: '1002', simple: { limit: 7, period: 10 } },
          LIMITER_PLAN_ENTERPRISE: { namespace_id: '1003', simple: { limit: 1_000_000, period: 60 } },
          LIMITER_PUBLIC: { namespace_id: '1004', simple: { limit: 30, period: 10 } },
          LIMITER_PUBLIC_CREATE: { namespace_id: '1005', simple: { limit: 15, period: 10 } },
        },
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations('./migrations'),
          ADMIN_TOKEN: 'test-admin-token',
          JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789abcdef',
          // 32 bytes, base64 (src/lib/secret-box.ts).
          PAYMENT_SECRETS_KEY: 'dGVzdC1vbmx5LXBheW1lbnQtc2VjcmV0cy1rZXktMzI=',
          VAT_CHECKER: 'fake',
          FAKE_VIES_UNREGISTERED: 'DE811907980',
          // One chunk of 25 subscriptions per invocation, so a test sees a run continue through alarms.
          BILLING_RUN_CHUNKS_PER_INVOCATION: '1',
          BILLING_RUN_CHUNK_SIZE: '25',
          // A billing run's documents render at once, so a test sees them without waiting a minute.
          BILLING_RENDER_DELAY_SECONDS: '0',
          // The same figures as the ratelimits above, which enforce them.
          RATE_LIMIT_PLANS: 'free:4/10,standard:7/10,enterprise:1000000/60',
          DEFAULT_TENANT_PLAN: 'enterprise',
          RATE_LIMIT_PUBLIC: '30/10',
          RATE_LIMIT_PUBLIC_CREATE: '15/10',
        },
      },
    })),
  ],
  test: {
    name: 'workers',
    // Every other test file under test/ runs in workerd (the *.unit.test.ts files run in Node).
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/**/*.unit.test.ts'],
    setupFiles: ['./test/support/setup.ts'],
    // One worker, no isolation: every file runs in the same worker (and shares its storage); on 2
    // cores this is several times faster than the defaults.
    maxWorkers: 1,
    isolate: false,
    testTimeout: 30_000,
  },
});
