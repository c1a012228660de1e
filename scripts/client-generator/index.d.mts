// Types of index.mjs.
export declare function schemaTypes(document: unknown): Promise<string>;
