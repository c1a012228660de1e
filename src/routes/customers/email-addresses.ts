import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { EmailAddressSchema } from '../../schemas/customers';
import { createEmail, deleteEmail, getEmail, listEmails, updateEmail } from '../../services/customers/addresses';
import { customerParams as params, emailParams, EmailUpdateSchema, EmailWriteSchema } from './requests';

const tags = ['Customers'];

export const customerEmailRoutes = createRouter();

customerEmailRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/email-addresses',
    access: 'customer:read',
    customerSelf: 'id',
    tags,
    summary: "List a customer's e-mail addresses",
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(EmailAddressSchema, 'EmailAddressCollection'), 'E-mail addresses') },
  }),
  async (c) => c.json(await listEmails(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

customerEmailRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customers/{id}/email-addresses',
    access: 'customer:write',
    tags,
    summary: 'Add an e-mail address',
    description: 'A new default of type `default` also becomes the customer\'s login e-mail (`email`).',
    request: { params, body: jsonBody(EmailWriteSchema) },
    responses: { 201: jsonResponse(EmailAddressSchema, 'The e-mail address') },
  }),
  async (c) => c.json(await createEmail(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);

customerEmailRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/email-addresses/{emailId}',
    access: 'customer:read',
    customerSelf: 'id',
    tags,
    summary: 'Get an e-mail address',
    request: { params: emailParams },
    responses: { 200: jsonResponse(EmailAddressSchema, 'The e-mail address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await getEmail(serviceContext(c), p.id, p.emailId), 200);
  },
);

customerEmailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/email-addresses/{emailId}',
    access: 'customer:write',
    tags,
    summary: 'Update an e-mail address',
    description: 'The fields sent change; fields not sent keep their values.',
    request: { params: emailParams, body: jsonBody(EmailUpdateSchema) },
    responses: { 200: jsonResponse(EmailAddressSchema, 'The e-mail address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await updateEmail(serviceContext(c), p.id, p.emailId, c.req.valid('json')), 200);
  },
);

customerEmailRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/customers/{id}/email-addresses/{emailId}',
    access: 'customer:write',
    tags,
    summary: 'Delete an e-mail address (not the login e-mail)',
    request: { params: emailParams },
    responses: { 204: noContent },
  }),
  async (c) => {
    const p = c.req.valid('param');
    await deleteEmail(serviceContext(c), p.id, p.emailId);
    return c.body(null, 204);
  },
);
