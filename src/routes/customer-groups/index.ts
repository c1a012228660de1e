import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { emailAddress, idParam, optionalText, requiredText } from '../../http/schemas';
import * as service from '../../services/customers/groups';

// Customer groups and contact persons: the records a customer refers to.

const GroupSchema = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CustomerGroup');
const GroupWriteSchema = z.strictObject({ name: requiredText(2, 255), description: optionalText(1, 1000) }).openapi('CustomerGroupWrite');

const ContactSchema = z
  .object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    avatar: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ContactPerson');
const ContactWriteSchema = z
  .strictObject({
    firstName: requiredText(1, 255),
    lastName: requiredText(1, 255),
    email: emailAddress,
    avatar: z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048).nullable().optional().transform((v) => v ?? null),
  })
  .openapi('ContactPersonWrite');

const params = z.object({ id: idParam('id', 'Id') });
export const customerGroupRoutes = createRouter();

for (const r of [
  {
    path: '/customer-groups',
    access: 'customer-group',
    tag: 'Customer groups',
    schema: GroupSchema,
    write: GroupWriteSchema,
    list: service.listGroups,
    get: service.getGroup,
    create: service.createGroup,
    update: service.updateGroup,
    remove: service.deleteGroup,
    name: 'CustomerGroup',
  },
  {
    path: '/contact-persons',
    access: 'contact-person',
    tag: 'Contact persons',
    schema: ContactSchema,
    write: ContactWriteSchema,
    list: service.listContactPersons,
    get: service.getContactPerson,
    create: service.createContactPerson,
    update: service.updateContactPerson,
    remove: service.deleteContactPerson,
    name: 'ContactPerson',
  },
] as const) {
  const tags = [r.tag];
  const read = `${r.access}:read` as const;
  const write = `${r.access}:write` as const;
  customerGroupRoutes.openapi(
    defineRoute({
      method: 'get',
      path: r.path,
      access: read,
      tags,
      summary: `List ${r.tag.toLowerCase()}`,
      request: { query: z.object(paginationQuery) },
      responses: { 200: jsonResponse(collectionSchema(r.schema, `${r.name}Collection`), r.tag) },
    }),
    async (c) => c.json(await r.list(serviceContext(c), c.req.valid('query')), 200),
  );
  customerGroupRoutes.openapi(
    defineRoute({
      method: 'post',
      path: r.path,
      access: write,
      tags,
      summary: `Create a ${r.name}`,
      request: { body: jsonBody(r.write) },
      responses: { 201: jsonResponse(r.schema, 'Created') },
    }),
    // The tuple's two entries pair each schema with its own service; TypeScript cannot see that through the union.
    async (c) => c.json(await (r.create as (ctx: unknown, input: unknown) => Promise<object>)(serviceContext(c), c.req.valid('json')), 201),
  );
  customerGroupRoutes.openapi(
    defineRoute({ method: 'get', path: `${r.path}/{id}`, access: read, tags, summary: `Get a ${r.name}`, request: { params }, responses: { 200: jsonResponse(r.schema, r.name) } }),
    async (c) => c.json(await r.get(serviceContext(c), c.req.valid('param').id), 200),
  );
  customerGroupRoutes.openapi(
    defineRoute({
      method: 'put',
      path: `${r.path}/{id}`,
      access: write,
      tags,
      summary: `Replace a ${r.name}`,
      request: { params, body: jsonBody(r.write) },
      responses: { 200: jsonResponse(r.schema, r.name) },
    }),
    async (c) =>
      c.json(await (r.update as (ctx: unknown, id: string, input: unknown) => Promise<object>)(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  customerGroupRoutes.openapi(
    defineRoute({
      method: 'delete',
      path: `${r.path}/{id}`,
      access: write,
      tags,
      summary: `Delete a ${r.name} (refused while customers use it)`,
      request: { params },
      responses: { 204: noContent },
    }),
    async (c) => {
      await r.remove(serviceContext(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
}
