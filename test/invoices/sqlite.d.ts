// Typings for the Node-only pieces of test/invoices/number-formats.unit.test.ts and of the browser
// tests' harness (which reads the local Worker's mail outbox), compiled without @types/node: Node's
// built-in SQLite, and Vite's import.meta.glob for the migration files.
declare module 'node:sqlite' {
  export class DatabaseSync {
    constructor(path: string, options?: { readOnly?: boolean });
    exec(sql: string): void;
    prepare(sql: string): { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
    close(): void;
  }
}

interface ImportMeta {
  glob(pattern: string, options: { query: '?raw'; import: 'default'; eager: true }): Record<string, string>;
}
