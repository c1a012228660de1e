// The D1 shards of a wrangler.toml (its D1_SHARDS var, docs/decisions.md, Tenancy and shards) for the
// Node scripts: local dev, the benchmarks, migrations of every shard. A line-based reading of the
// one var, so the scripts need no TOML parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shard bindings of `[vars]` (or of `[env.<name>.vars]` when `env` is given: wrangler does not
 * inherit vars into environments), DB first. Without D1_SHARDS there is one shard, DB.
 */
export function shardBindings(tomlText, env) {
  const wanted = env ? `env.${env}.vars` : 'vars';
  let table = '';
  for (const raw of tomlText.split('\n')) {
    const line = raw.trim();
    const header = /^\[([^\[\]]+)\]$/.exec(line);
    if (header) {
      table = header[1].trim();
      continue;
    }
    const m = /^D1_SHARDS\s*=\s*"([^"]*)"/.exec(line);
    if (m && table === wanted) return m[1].split(',').map((s) => s.trim()).filter(Boolean);
  }
  return ['DB'];
}

/** The shards of the wrangler.toml in `dir`. */
export function projectShards(dir, env) {
  return shardBindings(readFileSync(join(dir, 'wrangler.toml'), 'utf8'), env);
}
