// A throwaway local Worker for scripts that need the real server (the smoke test, the document's
// examples, the typed client's generation): a snapshot of the sources (bench/lib.mjs) served by
// `wrangler dev` on a free port over fresh state, with the secrets of .dev.vars.example.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { snapshotProject, startLocalServer } from '../../bench/lib.mjs';

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The local secrets every start needs (JWT_SECRET, PAYMENT_SECRETS_KEY…), as .dev.vars.example has them. */
function exampleSecrets() {
  const text = readFileSync(fileURLToPath(new URL('../../.dev.vars.example', import.meta.url)), 'utf8');
  return Object.fromEntries(text.split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]));
}

/** Starts it; `{ url, adminToken, stop() }`. */
export async function startScratchWorker({ adminToken = 'scratch-admin-token', vars = {} } = {}) {
  const snapshot = await snapshotProject();
  try {
    const server = await startLocalServer({ port: await freePort(), cwd: snapshot.dir, vars: { ...exampleSecrets(), ADMIN_TOKEN: adminToken, ...vars } });
    return {
      url: server.url,
      adminToken,
      stop: async () => {
        await server.stop();
        await snapshot.remove();
      },
    };
  } catch (err) {
    await snapshot.remove();
    throw err;
  }
}
