// Types of tenant-export.mjs, for the tests that run it.
export declare const DIRECTORY_TABLES: string[];
export declare const MAX_STATEMENT_BYTES: number;
export declare const TENANT_TABLES_SQL: string;
export declare function sqlLiteral(v: unknown): string;
export declare function rowsQuery(table: string, tenantId: string): string;
export declare function insertStatements(tables: { name: string; rows: Record<string, unknown>[] }[]): string[];
export declare function deleteStatements(tableNames: string[], tenantId: string): string[];
