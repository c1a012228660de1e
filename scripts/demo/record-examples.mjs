// `npm run docs:examples`: the examples of /openapi.json, recorded from a real server. It starts a
// fresh local Worker, seeds the demo tenant through the API (scripts/demo/seed.mjs), reads every
// list and one item of each, and keeps the first successful answer of each operation, secrets
// masked, lists cut to two entries, in src/http/openapi-examples.json. test/http/openapi-examples.test.ts
// checks each against its operation's response schema, so an example never shows a stale shape.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { PROJECT_ROOT } from '../../bench/lib.mjs';
import { startScratchWorker } from '../lib/scratch-worker.mjs';
import { apiClient, seedDemo } from './seed.mjs';

const ADMIN_TOKEN = 'examples-admin-token';
const OUT = join(PROJECT_ROOT, 'src', 'http', 'openapi-examples.json');

/** Masks what must never appear in a document: keys, secrets, tokens, link signatures. */
function redact(value) {
  if (typeof value === 'string') {
    return value
      .replace(/sk_(test|live)_[A-Za-z0-9_-]+/g, 'sk_$1_••••')
      .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_••••')
      .replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, 'eyJ••••')
      .replace(/signature=[0-9a-f]+/g, 'signature=••••');
  }
  if (Array.isArray(value)) return value.slice(0, 2).map(redact);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
  return value;
}

/** `METHOD /concrete/path?query` → `METHOD /template/{id}` of the document, literal segments first. */
function templateMatcher(doc) {
  const templates = Object.keys(doc.paths)
    .map((t) => ({ t, params: (t.match(/\{/g) ?? []).length, re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`) }))
    .sort((a, b) => a.params - b.params);
  return (method, path) => {
    const pathname = path.split('?')[0];
    const hit = templates.find(({ t, re }) => re.test(pathname) && doc.paths[t][method.toLowerCase()]);
    return hit && `${method} ${hit.t}`;
  };
}

process.stdout.write('Starting a local Worker…\n');
const server = await startScratchWorker({ adminToken: ADMIN_TOKEN });
try {
  const doc = await (await fetch(`${server.url}/openapi.json`)).json();
  const templateOf = templateMatcher(doc);
  const examples = {};
  const onResponse = ({ method, path, status, body }) => {
    const key = templateOf(method, path);
    if (!key || status >= 300 || body === undefined || typeof body === 'string' || examples[key]) return;
    examples[key] = { status, body: redact(body) };
  };
  const bar = new cliProgress.SingleBar({ format: 'Seeding {bar} {value}/{total} {step}' }, cliProgress.Presets.shades_classic);
  bar.start(1, 0, { step: '' });
  const state = await seedDemo({
    baseUrl: server.url,
    adminToken: ADMIN_TOKEN,
    webhookUrl: 'http://localhost:9/webhooks',
    onResponse,
    onStep: (step, done, total) => {
      bar.setTotal(total);
      bar.update(done, { step });
    },
  });
  bar.stop();

  // Every list of the tenant, then one item of each (the first entry's id).
  const api = apiClient(server.url, state.apiKey, { onResponse });
  const gets = Object.keys(doc.paths).filter((t) => doc.paths[t].get && !t.startsWith('/admin') && !t.startsWith('/public'));
  for (const t of gets.filter((t) => !t.includes('{'))) await api('GET', t).catch(() => {});
  // Then every read under one item (`/x/{id}`, `/x/{id}/y`), with the first entry of the list `/x`.
  for (const t of gets.filter((t) => /^\/[^{}]+\/\{id\}(\/[^{}]+)?$/.test(t))) {
    const list = examples[`GET ${t.slice(0, t.indexOf('/{id}'))}`]?.body?.data;
    if (Array.isArray(list) && list[0]?.id) await api('GET', t.replace('{id}', list[0].id)).catch(() => {});
  }
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(OUT, JSON.stringify(sorted, null, 1) + '\n');
  const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  process.stdout.write(`Wrote ${Object.keys(sorted).length} examples (of ${operations} operations) to ${OUT}\n`);
} finally {
  await server.stop();
}
