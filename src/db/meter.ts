// What D1 bills: rows read and rows written, summed per isolate over every statement of every shard
// when D1_METER is set (docs/scaling.md, One billing run, measures a run with it). Off by default
// and never in production: to count a read that Drizzle runs through `raw()` (which returns no
// meta), the statement is run once more through `all()`, so a metered run is slower and reads twice.

export interface D1Meter {
  rowsRead: number;
  rowsWritten: number;
  statements: number;
  /** Statements run through `raw()`/`first()` that write: not run again, so not counted. */
  uncounted: number;
}

const meter: D1Meter = { rowsRead: 0, rowsWritten: 0, statements: 0, uncounted: 0 };

export const d1Meter = (): Readonly<D1Meter> => ({ ...meter });

const READ_ONLY = /^\s*(SELECT|WITH)\b/i;
const unwrapped = new WeakMap<object, D1PreparedStatement>();
const bindings = new WeakMap<D1Database, D1Database>();

function count(meta: Partial<D1Meta> | undefined) {
  meter.statements++;
  meter.rowsRead += meta?.rows_read ?? 0;
  meter.rowsWritten += meta?.rows_written ?? 0;
}

function meteredStatement(statement: D1PreparedStatement, query: string): D1PreparedStatement {
  const wrapped = new Proxy(statement, {
    get(target, prop) {
      if (prop === 'bind') return (...values: unknown[]) => meteredStatement(target.bind(...values), query);
      if (prop === 'all' || prop === 'run')
        return async () => {
          const result = await target[prop]();
          count(result.meta);
          return result;
        };
      if (prop === 'raw' || prop === 'first')
        return async (...args: unknown[]) => {
          if (READ_ONLY.test(query)) count((await target.all()).meta);
          else meter.uncounted++;
          return (target[prop] as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  unwrapped.set(wrapped, statement);
  return wrapped;
}

async function meteredBatch(batch: (s: D1PreparedStatement[]) => Promise<D1Result[]>, statements: D1PreparedStatement[]) {
  const results = await batch(statements.map((s) => unwrapped.get(s) ?? s));
  for (const r of results) count(r.meta);
  return results;
}

function meteredSession(session: D1DatabaseSession): D1DatabaseSession {
  return {
    prepare: (query: string) => meteredStatement(session.prepare(query), query),
    batch: <T>(statements: D1PreparedStatement[]) => meteredBatch((s) => session.batch(s), statements) as Promise<D1Result<T>[]>,
    getBookmark: () => session.getBookmark(),
  };
}

/** The binding as it is, or (D1_METER) one that counts what its statements read and write. */
export function metered(d1: D1Database, on: boolean): D1Database {
  if (!on) return d1;
  let wrapped = bindings.get(d1);
  if (!wrapped) {
    wrapped = {
      prepare: (query: string) => meteredStatement(d1.prepare(query), query),
      batch: <T>(statements: D1PreparedStatement[]) => meteredBatch((s) => d1.batch(s), statements) as Promise<D1Result<T>[]>,
      exec: (query: string) => d1.exec(query),
      dump: () => d1.dump(),
      withSession: (constraint?: string) => meteredSession(d1.withSession(constraint as D1SessionConstraint)),
    } as D1Database;
    bindings.set(d1, wrapped);
  }
  return wrapped;
}

/**
 * One log line with the meter's totals so far (a benchmark subtracts two of them). At warn level:
 * the benchmarks run `wrangler dev --log-level warn`, which drops a Worker's console.log.
 */
export function logD1Meter(fields: Record<string, unknown>): void {
  console.warn(JSON.stringify({ level: 'info', d1Meter: d1Meter(), ...fields }));
}
