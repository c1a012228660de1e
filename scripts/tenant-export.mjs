// Moving a tenant to another shard (docs/deploy.md, "Moving a tenant to another shard"): writes the
// SQL that copies one tenant's rows (INSERT OR REPLACE, so a stopped import can run again) and the
// SQL that deletes them from the shard it leaves, read through `wrangler d1 execute --json`.
//
//   npm run tenant:export -- --tenant <id> --from <shard binding> (--remote | --local) [--env <name>]
//                            [--out tenant.sql] [--delete-out tenant-delete.sql] [--persist-to <dir>]
//
// It only reads. The operator marks the tenant moving first and imports, switches and deletes
// afterwards, as docs/deploy.md describes.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteStatements, insertStatements, rowsQuery, TENANT_TABLES_SQL } from './lib/tenant-export.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return i === -1 ? undefined : (args[i].split('=')[1] ?? args[i + 1]);
};
const tenant = option('tenant');
const from = option('from');
const where = args.includes('--remote') ? ['--remote'] : args.includes('--local') ? ['--local'] : undefined;
if (!tenant || !from || !where || !/^[A-Za-z0-9-]{1,64}$/.test(tenant)) {
  console.error('usage: npm run tenant:export -- --tenant <id> --from <shard binding> (--remote | --local) [--env <name>] [--out file] [--delete-out file] [--persist-to dir]');
  process.exit(2);
}
const passThrough = [...where, ...(option('env') ? ['--env', option('env')] : []), ...(option('persist-to') ? ['--persist-to', option('persist-to')] : [])];
const require = createRequire(import.meta.url);
const wrangler = join(dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');

/** The rows of one query, through wrangler. */
function select(sql) {
  const r = spawnSync(process.execPath, [wrangler, 'd1', 'execute', from, ...passThrough, '--json', '--command', sql], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
  });
  if (r.status !== 0) throw new Error(`wrangler d1 execute ${from} failed: ${r.stderr || r.stdout}`);
  const parsed = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
  return parsed[0].results;
}

const tables = ['tenants', ...select(TENANT_TABLES_SQL).map((r) => r.name)];
const exported = tables.map((name) => ({ name, rows: select(rowsQuery(name, tenant)) }));
if (exported[0].rows.length !== 1) {
  console.error(`tenant ${tenant} is not on ${from}`);
  process.exit(1);
}
const out = option('out') ?? `tenant-${tenant}.sql`;
const deleteOut = option('delete-out') ?? `tenant-${tenant}-delete.sql`;
writeFileSync(out, insertStatements(exported).join('\n') + '\n');
writeFileSync(deleteOut, deleteStatements(tables, tenant).join('\n') + '\n');
for (const t of exported.filter((e) => e.rows.length)) console.log(`${t.name.padEnd(36)} ${t.rows.length}`);
console.log(`\nwrote ${out} (import into the new shard) and ${deleteOut} (run on ${from} once the directory names the new shard)`);
