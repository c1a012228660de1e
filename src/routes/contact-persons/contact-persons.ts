import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { emailAddress, idParam, requiredText } from '../../http/schemas';
import { ContactPersonSchema } from '../../schemas/customers';
import { createContactPerson, deleteContactPerson, getContactPerson, listContactPersons, updateContactPerson } from '../../services/customers/groups';

const ContactWriteSchema = z
  .strictObject({
    firstName: requiredText(1, 255),
    lastName: requiredText(1, 255),
    email: emailAddress,
    avatar: z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048).nullable().optional().transform((v) => v ?? null),
  })
  .openapi('ContactPersonWrite');

const tags = ['Contact persons'];
const params = z.object({ id: idParam('id', 'Id') });
export const contactPersonRoutes = createRouter();

contactPersonRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-persons',
    access: 'contact-person:read',
    tags,
    summary: 'List contact persons',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(ContactPersonSchema, 'ContactPersonCollection'), 'Contact persons') },
  }),
  async (c) => c.json(await listContactPersons(serviceContext(c), c.req.valid('query')), 200),
);

contactPersonRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/contact-persons',
    access: 'contact-person:write',
    tags,
    summary: 'Create a ContactPerson',
    request: { body: jsonBody(ContactWriteSchema) },
    responses: { 201: jsonResponse(ContactPersonSchema, 'Created') },
  }),
  async (c) => c.json(await createContactPerson(serviceContext(c), c.req.valid('json')), 201),
);

contactPersonRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-persons/{id}',
    access: 'contact-person:read',
    tags,
    summary: 'Get a ContactPerson',
    request: { params },
    responses: { 200: jsonResponse(ContactPersonSchema, 'ContactPerson') },
  }),
  async (c) => c.json(await getContactPerson(serviceContext(c), c.req.valid('param').id), 200),
);

contactPersonRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/contact-persons/{id}',
    access: 'contact-person:write',
    tags,
    summary: 'Replace a ContactPerson',
    request: { params, body: jsonBody(ContactWriteSchema) },
    responses: { 200: jsonResponse(ContactPersonSchema, 'ContactPerson') },
  }),
  async (c) => c.json(await updateContactPerson(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

contactPersonRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/contact-persons/{id}',
    access: 'contact-person:write',
    tags,
    summary: 'Delete a ContactPerson (refused while customers use it)',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteContactPerson(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
