// Typings for the Node-only pieces of test/invoices/number-formats.unit.test.ts (the project has no
// @types/node): Node's built-in SQLite, and Vite's import.meta.glob for the migration files.
declare module 'node:sqlite' {
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    prepare(sql: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };
  }
}

interface ImportMeta {
  glob(pattern: string, options: { query: '?raw'; import: 'default'; eager: true }): Record<string, string>;
}
