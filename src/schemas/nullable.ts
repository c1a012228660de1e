import { z } from '@hono/zod-openapi';

/**
 * A registered (named) schema or null. `.nullable()` on a named schema loses the null in the
 * OpenAPI document (the generator writes the bare `$ref`, or an `allOf` that no null satisfies);
 * a union with null is written as `anyOf: [{$ref}, {type: 'null'}]`, which clients generate as `T | null`.
 */
export const nullableRef = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);
