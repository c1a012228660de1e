import { z } from '@hono/zod-openapi';
import { serviceContext } from '../http/context';
import { ApiError, zodViolations } from '../http/errors';
import { applyMergePatch } from '../http/merge-patch';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody, noContent } from '../http/openapi';
import { collectionSchema, paginationQuery, sortDirection } from '../http/pagination';
import type { PermissionResource } from '../http/permissions';
import { idParam } from '../http/schemas';
import type { ResourceService } from '../services/common/resource';

type Router = ReturnType<typeof createRouter>;

export interface ResourceRoutes<S extends z.ZodType, Row extends { id: string }, Input> {
  /** Literal paths, so a route is found by searching for it: `{ collection: '/units', item: '/units/{id}' }`. */
  paths: { collection: string; item: string };
  /** OpenAPI component name of the resource, e.g. `Unit`. */
  name: string;
  tag: string;
  permission: PermissionResource;
  /** Renders exactly what `schema` declares: the generic ties the two together at each call site. */
  service: ResourceService<Row, Input, z.infer<S>>;
  schema: S;
  writeSchema: z.ZodType<Input>;
  /** The resource registers its own create route (e.g. one that shows a secret once). */
  skipCreate?: boolean;
  /** Operations to leave out (e.g. delete for resources that are archived instead). */
  without?: ('delete' | 'patch')[];
  descriptions?: Partial<Record<'list' | 'create' | 'get' | 'put' | 'patch' | 'delete', string>>;
}

/**
 * Registers list, create, get, replace, merge-patch and delete for a resource, with the same
 * conventions everywhere: pagination, filters, `order[…]`, permissions, 404 across tenants. The list
 * filters and sortable fields are the ones the service declares.
 */
export function registerResourceRoutes<S extends z.ZodType, Row extends { id: string }, Input>(router: Router, r: ResourceRoutes<S, Row, Input>) {
  const tags = [r.tag];
  const read = `${r.permission}:read` as const;
  const write = `${r.permission}:write` as const;
  const params = z.object({ id: idParam('id', `${r.name} id`) });
  const { collection, item } = r.paths;
  const { filters = {}, sortable = {} } = r.service.hooks;
  const lower = r.service.hooks.label.toLowerCase();

  const query = z.object({
    ...paginationQuery,
    ...Object.fromEntries(Object.entries(filters).map(([k, f]) => [k, f.schema.optional()])),
    ...Object.fromEntries(Object.keys(sortable).map((k) => [`order[${k}]`, sortDirection.optional()])),
  });

  router.openapi(
    defineRoute({
      method: 'get',
      path: collection,
      access: read,
      tags,
      summary: `List ${r.tag.toLowerCase()}`,
      description: r.descriptions?.list,
      request: { query },
      responses: { 200: jsonResponse(collectionSchema(r.schema, `${r.name}Collection`), `A page of ${r.tag.toLowerCase()}`) },
    }),
    async (c) => c.json(await r.service.list(serviceContext(c), c.req.valid('query')), 200),
  );

  if (!r.skipCreate)
  router.openapi(
    defineRoute({
      method: 'post',
      path: collection,
      access: write,
      tags,
      summary: `Create a ${lower}`,
      description: r.descriptions?.create,
      request: { body: jsonBody(r.writeSchema) },
      responses: { 201: jsonResponse(r.schema, `The ${lower}`) },
    }),
    async (c) => c.json(await r.service.create(serviceContext(c), c.req.valid('json')), 201),
  );

  router.openapi(
    defineRoute({
      method: 'get',
      path: item,
      access: read,
      tags,
      summary: `Get a ${lower}`,
      description: r.descriptions?.get,
      request: { params },
      responses: { 200: jsonResponse(r.schema, `The ${lower}`) },
    }),
    async (c) => c.json(r.service.render(await r.service.find(serviceContext(c), c.req.valid('param').id)), 200),
  );

  router.openapi(
    defineRoute({
      method: 'put',
      path: item,
      access: write,
      tags,
      summary: `Replace a ${lower}`,
      description: r.descriptions?.put,
      request: { params, body: jsonBody(r.writeSchema) },
      responses: { 200: jsonResponse(r.schema, `The ${lower}`) },
    }),
    async (c) => c.json(await r.service.update(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  const writable = r.service.hooks.writable;
  if (writable && !r.without?.includes('patch')) {
    router.openapi(
      defineRoute({
        method: 'patch',
        path: item,
        access: write,
        tags,
        summary: `Change some fields of a ${lower} (JSON merge patch)`,
        description: r.descriptions?.patch,
        request: { params, body: mergePatchBody(z.record(z.string(), z.unknown()).openapi(`${r.name}Patch`)) },
        responses: { 200: jsonResponse(r.schema, `The ${lower}`) },
      }),
      async (c) => {
        const ctx = serviceContext(c);
        const id = c.req.valid('param').id;
        // The patch applies to the row as read, and the update is guarded by that read.
        const read = await r.service.find(ctx, id);
        const parsed = r.writeSchema.safeParse(applyMergePatch(writable(read), c.req.valid('json')));
        if (!parsed.success) throw ApiError.validation(zodViolations(parsed.error));
        return c.json(await r.service.update(ctx, id, parsed.data, read), 200);
      },
    );
  }

  if (!r.without?.includes('delete')) {
    router.openapi(
      defineRoute({
        method: 'delete',
        path: item,
        access: write,
        tags,
        summary: `Delete a ${lower}`,
        description: r.descriptions?.delete ?? (r.service.hooks.inUse ? `Refused with 409 while the ${lower} is in use.` : undefined),
        request: { params },
        responses: { 204: noContent },
      }),
      async (c) => {
        await r.service.remove(serviceContext(c), c.req.valid('param').id);
        return c.body(null, 204);
      },
    );
  }
}
