// Moving a tenant between shards (docs/deploy.md, "Moving a tenant to another shard"): the SQL that
// copies one tenant's rows into another shard, and the SQL that deletes them from the old one.
// Pure functions over rows as D1 returns them, so the same code runs in the script (through
// `wrangler d1 execute --json`) and in the tests (through a D1 binding).

/** The directory's tables live in shard 0 and name tenants, but are no tenant's rows to move. */
export const DIRECTORY_TABLES = ['tenant_directory', 'api_key_directory'];

/** D1 refuses SQL statements longer than this (bytes); a row that does not fit is reported, not cut. */
export const MAX_STATEMENT_BYTES = 100_000;

/** The tables that hold a tenant's rows: `tenants` (by id) and every table with a tenant_id column. */
export const TENANT_TABLES_SQL = `SELECT m.name AS name FROM sqlite_master m
  WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_cf_%' AND m.name <> 'd1_migrations'
    AND m.name NOT IN (${DIRECTORY_TABLES.map((t) => `'${t}'`).join(', ')})
    AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'tenant_id')
  ORDER BY m.name`;

const quoteName = (name) => `"${String(name).replaceAll('"', '""')}"`;

/** A value as a SQL literal: strings, numbers, booleans and null, as D1 returns them. */
export function sqlLiteral(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} as SQL`);
    return String(v);
  }
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  throw new Error(`cannot write a ${typeof v} as SQL (blobs are not exported)`);
}

/** The query that reads a table's rows of the tenant. */
export function rowsQuery(table, tenantId) {
  const column = table === 'tenants' ? 'id' : 'tenant_id';
  return `SELECT * FROM ${quoteName(table)} WHERE ${column} = ${sqlLiteral(tenantId)}`;
}

/**
 * INSERT statements for a tenant's rows: `tables` is [{ name, rows }] (rows as objects). The
 * tenant's own row goes first (api_keys refers to it). `INSERT OR REPLACE`, so an import that
 * stopped half-way can simply be run again. Throws when a statement would exceed D1's limit.
 */
export function insertStatements(tables) {
  const ordered = [...tables].sort((a, b) => (a.name === 'tenants' ? -1 : b.name === 'tenants' ? 1 : a.name.localeCompare(b.name)));
  const out = [];
  for (const { name, rows } of ordered) {
    for (const row of rows) {
      const columns = Object.keys(row);
      const statement = `INSERT OR REPLACE INTO ${quoteName(name)} (${columns.map(quoteName).join(', ')}) VALUES (${columns.map((c) => sqlLiteral(row[c])).join(', ')});`;
      if (new TextEncoder().encode(statement).length > MAX_STATEMENT_BYTES) {
        throw new Error(`a row of ${name} needs a statement over ${MAX_STATEMENT_BYTES} bytes (${columns.map((c) => `${c}`).join(', ')}); see docs/deploy.md`);
      }
      out.push(statement);
    }
  }
  return out;
}

/** DELETE statements that remove a tenant's rows from a shard, its own row last. */
export function deleteStatements(tableNames, tenantId) {
  return [
    ...tableNames.filter((t) => t !== 'tenants').sort().map((t) => `DELETE FROM ${quoteName(t)} WHERE tenant_id = ${sqlLiteral(tenantId)};`),
    `DELETE FROM "tenants" WHERE id = ${sqlLiteral(tenantId)};`,
  ];
}
