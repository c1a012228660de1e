// The demo tenant of `npm run dev`, made once: the first start seeds it (scripts/demo/seed.mjs)
// and keeps its key and links in a state file; every later start only shows them. An interrupted
// seeding continues on the next start (its writes carry Idempotency-Keys, see seed.mjs).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import cliProgress from 'cli-progress';
import { demoLinks, seedDemo } from './seed.mjs';

/**
 * Ensures the demo tenant exists and is seeded. Answers `{ state, action }`: `created` (seeded
 * now), `resumed`, `existing` (nothing done), or `foreign` (the database has tenants this file did
 * not make; nothing is done, since their keys cannot be read back). `onlyIntoEmpty: false` seeds
 * next to other tenants (the tests, which share their Worker).
 */
export async function ensureDemo({ baseUrl, adminToken, stateFile, webhookUrl, progress = false, onlyIntoEmpty = true, log = console.log }) {
  let state = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : null;
  // A file from before the seeding (only a tenant and its key) stands for a tenant someone may be using.
  if (state && (state.seeded || !('seeded' in state))) {
    if (state.refs) state = { ...state, links: await demoLinks(baseUrl, state.apiKey, state.refs) };
    return { state, action: 'existing' };
  }
  if (!state && onlyIntoEmpty) {
    const res = await fetch(`${baseUrl}/admin/tenants?limit=1`, { headers: { Authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`GET /admin/tenants answered ${res.status}`);
    const { data } = await res.json();
    if (data.length > 0) return { state: null, action: 'foreign' };
  }
  const action = state ? 'resumed' : 'created';
  log(`[dev] ${action === 'created' ? 'Seeding the demo tenant through the API (once; `npm run dev -- --no-demo` skips it)' : 'Continuing the interrupted demo seeding'}…`);
  const bar = progress
    ? new cliProgress.SingleBar({ format: '[dev] {bar} {value}/{total} {step}', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(1, 0, { step: '' });
  try {
    state = await seedDemo({
      baseUrl,
      adminToken,
      state: state ?? {},
      webhookUrl,
      save: (next) => {
        mkdirSync(dirname(stateFile), { recursive: true });
        writeFileSync(stateFile, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
      },
      onStep: (step, done, total) => {
        bar?.setTotal(total);
        bar?.update(done, { step });
      },
    });
  } finally {
    bar?.stop();
  }
  return { state, action };
}
