// `npm run db:migrate -- (--local | --remote) [--env <name>]`: applies the D1 migrations to every
// shard of wrangler.toml's D1_SHARDS (of the environment's vars with --env), one after the other,
// stopping at the first that fails. All shards share one schema (docs/decisions.md, Tenancy and shards).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectShards } from './lib/shards.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
if (!args.includes('--local') && !args.includes('--remote')) {
  console.error('usage: npm run db:migrate -- (--local | --remote) [--env <name>] [other wrangler flags]');
  process.exit(2);
}
const envIdx = args.findIndex((a) => a === '--env' || a.startsWith('--env='));
const env = envIdx === -1 ? undefined : (args[envIdx].split('=')[1] ?? args[envIdx + 1]);
const require = createRequire(import.meta.url);
const wrangler = join(dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');

for (const shard of projectShards(root, env)) {
  console.log(`[migrate] ${shard}${env ? ` (env ${env})` : ''}`);
  const r = spawnSync(process.execPath, [wrangler, 'd1', 'migrations', 'apply', shard, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
  if (r.status !== 0) {
    console.error(`[migrate] ${shard} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}); the shards after it were not migrated.`);
    process.exit(r.status || 1);
  }
}
