import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startCardGatewayFake } from './card-gateway-fake';

// One local Worker for every browser test: `wrangler dev` on a free port over fresh temporary
// state with the migrations applied — bench/lib.mjs's startLocalServer, on a snapshot of the
// sources so edits made meanwhile do not reload the Worker under a running test.

export const ADMIN_TOKEN = 'browser-test-admin-token';

export interface CheckoutServer {
  url: string;
  adminToken: string;
  /** The card gateway's fake (Stripe's API and a stand-in for Stripe.js), see card-gateway-fake.ts. */
  cardGatewayUrl: string;
  /** The Worker's local state (its D1 files): where tests read the mail outbox (mailsTo in harness.ts). */
  persistTo: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    checkoutServer: CheckoutServer;
  }
}

/** The subset of bench/lib.mjs used here (a .mjs file without declarations, loaded by URL). */
interface BenchLib {
  startLocalServer(options: { port: number; vars: Record<string, string>; cwd?: string; logLevel?: string }): Promise<{ url: string; persistTo: string; stop(): Promise<void>; logs(): string }>;
  snapshotProject(): Promise<{ dir: string; remove(): Promise<void> }>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

export default async function setup(project: TestProject) {
  const libUrl = pathToFileURL(resolve(import.meta.dirname, '../../bench/lib.mjs')).href;
  const lib = (await import(/* @vite-ignore */ libUrl)) as BenchLib;
  const snapshot = await lib.snapshotProject();
  const started = Date.now();
  const cardGateway = await startCardGatewayFake();
  let server;
  try {
    server = await lib.startLocalServer({
      port: await freePort(),
      cwd: snapshot.dir,
      vars: {
        ADMIN_TOKEN,
        JWT_SECRET: 'browser-test-jwt-secret-0123456789abcdef0123456789',
        // 32 bytes, base64 (src/lib/secret-box.ts).
        PAYMENT_SECRETS_KEY: 'YnJvd3Nlci10ZXN0LXBheW1lbnQtc2VjcmV0cy0zMmI=',
        VAT_CHECKER: 'fake',
        STRIPE_API_BASE: cardGateway.url,
        CARD_CLIENT_URL: `${cardGateway.url}/v3/`,
      },
    });
  } catch (err) {
    await snapshot.remove();
    await cardGateway.stop();
    throw err;
  }
  process.stdout.write(`browser tests: Worker at ${server.url} (started in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  project.provide('checkoutServer', { url: server.url, adminToken: ADMIN_TOKEN, cardGatewayUrl: cardGateway.url, persistTo: server.persistTo });
  return async () => {
    await server.stop();
    await snapshot.remove();
    await cardGateway.stop();
  };
}
