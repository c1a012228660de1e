import { z } from '@hono/zod-openapi';

/** Query integer: digits only, so `limit=abc` or `limit=1.5` is refused instead of coerced. */
export function queryInt(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^\d{1,9}$/, 'Must be a whole number.')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);
}

export const paginationQuery = {
  // page=0 is the first page: n8n's "Return All" starts counting at 0 (docs/decisions.md, Foundations).
  page: queryInt(0, 1_000_000, 1)
    .transform((p) => Math.max(p, 1))
    .openapi({ param: { name: 'page', in: 'query' }, type: 'integer', minimum: 0, default: 1, description: 'Pages count from 1; 0 is read as 1.' }),
  limit: queryInt(0, 100, 30).openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', minimum: 0, maximum: 100, default: 30 }),
};

export const sortDirection = z.enum(['asc', 'desc']);

/**
 * A list filter's query parameters: `name` and `name[]` (as query-string libraries send arrays), each
 * one value or the parameter repeated. Read them back with `filterValues`.
 */
export function listFilter<N extends string, T extends z.ZodTypeAny>(name: N, item: T, max = 100) {
  const values = z.union([item, z.array(item).max(max)]).optional();
  return { [name]: values, [`${name}[]`]: values } as { [K in N | `${N}[]`]: typeof values };
}

/** The values a `listFilter` got under either spelling; an empty value (a form's empty field) filters nothing. Undefined when none. */
export function filterValues<T>(...given: (T | T[] | undefined)[]): Exclude<T, ''>[] | undefined {
  const values = given.flat().filter((v): v is Exclude<T, ''> => v !== undefined && v !== '');
  return values.length ? (values as Exclude<T, ''>[]) : undefined;
}

export const paginationMeta = z
  .object({
    pagination: z.object({
      totalItems: z.number().int(),
      itemsPerPage: z.number().int(),
      currentPage: z.number().int(),
      lastPage: z.number().int(),
      pageTotalItems: z.number().int(),
    }),
  })
  .openapi('CollectionMeta');

export function collectionSchema<T extends z.ZodTypeAny>(item: T, name: string) {
  return z.object({ data: z.array(item), meta: paginationMeta }).openapi(name);
}

export interface Page {
  page: number;
  limit: number;
}

export function pageOffset({ page, limit }: Page): number {
  return (page - 1) * limit;
}

/** The single shape of every collection response (docs/decisions.md, Foundations). */
export function collection<T>(items: T[], totalItems: number, { page, limit }: Page) {
  return {
    data: items,
    meta: {
      pagination: {
        totalItems,
        itemsPerPage: limit,
        currentPage: page,
        lastPage: limit === 0 ? 1 : Math.max(1, Math.ceil(totalItems / limit)),
        pageTotalItems: items.length,
      },
    },
  };
}
