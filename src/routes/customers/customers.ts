import { serviceContext } from '../../http/context';
import { ApiError, zodViolations } from '../../http/errors';
import { applyMergePatch } from '../../http/merge-patch';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { CustomerSchema } from '../../schemas/customers';
import { createCustomer } from '../../services/customers/create';
import { deleteCustomer } from '../../services/customers/delete';
import { customerListQuery, listCustomers } from '../../services/customers/list';
import { loadCustomer } from '../../services/customers/read';
import { renderCustomer } from '../../services/customers/render';
import { customerWithChanges, setCustomerPartner, setCustomerStatus, updateCustomer, writableCustomer } from '../../services/customers/update';
import {
  CustomerCreateSchema,
  CustomerPatchSchema,
  CustomerUpdateSchema,
  CustomerWritableSchema,
  customerParams as params,
  datevIdAsLedgerId,
  PartnerBodySchema,
} from './requests';

const tags = ['Customers'];

export const customerRoutes = createRouter();

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers',
    access: 'customer:read',
    tags,
    summary: 'List customers',
    description: 'Unknown query parameters are refused (400).',
    request: { query: customerListQuery },
    responses: { 200: jsonResponse(collectionSchema(CustomerSchema, 'CustomerCollection'), 'A page of customers') },
  }),
  async (c) => c.json(await listCustomers(serviceContext(c), c.req.valid('query')), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customers',
    access: 'customer:write',
    tags,
    summary: 'Create a customer',
    request: { body: jsonBody(CustomerCreateSchema) },
    responses: { 201: jsonResponse(CustomerSchema, 'The created customer') },
  }),
  async (c) => c.json(await createCustomer(serviceContext(c), c.req.valid('json')), 201),
);

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}',
    access: 'customer:read',
    customerSelf: 'id',
    tags,
    summary: 'Get a customer',
    request: { params },
    responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
  }),
  async (c) => c.json(renderCustomer(await loadCustomer(serviceContext(c), c.req.valid('param').id)), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}',
    access: 'customer:write',
    tags,
    summary: 'Update a customer',
    description:
      'The fields sent change (null clears a field, or restores its default); fields not sent keep their values, and ' +
      '`customFields` merge member by member. Addresses and e-mail addresses change through their own sub-resources.',
    request: { params, body: jsonBody(CustomerUpdateSchema) },
    responses: { 200: jsonResponse(CustomerSchema, 'The updated customer') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const customerId = c.req.valid('param').id;
    // The changes apply to the customer as read, and the update is guarded by that read.
    const read = await loadCustomer(ctx, customerId);
    return c.json(await updateCustomer(ctx, customerId, customerWithChanges(read, c.req.valid('json')), read), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/customers/{id}',
    access: 'customer:write',
    tags,
    summary: 'Change some fields of a customer (JSON merge patch)',
    request: { params, body: mergePatchBody(CustomerPatchSchema) },
    responses: { 200: jsonResponse(CustomerSchema, 'The updated customer') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const customerId = c.req.valid('param').id;
    // The patch applies to the customer as read, and the update is guarded by that read.
    const read = await loadCustomer(ctx, customerId);
    const parsed = CustomerWritableSchema.safeParse(applyMergePatch(writableCustomer(read), datevIdAsLedgerId(c.req.valid('json'))));
    if (!parsed.success) throw ApiError.validation(zodViolations(parsed.error));
    return c.json(await updateCustomer(ctx, customerId, parsed.data, read), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/customers/{id}',
    access: 'customer:write',
    tags,
    summary: 'Delete a customer that nothing refers to',
    description: 'Refused (409) while invoices, subscriptions, partner clients, reserved price plans, coupon redemptions or entitlements refer to the customer; archive it instead.',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteCustomer(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/archive',
    access: 'customer:write',
    tags,
    summary: 'Archive a customer',
    request: { params },
    responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
  }),
  async (c) => c.json(await setCustomerStatus(serviceContext(c), c.req.valid('param').id, 'archive'), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/unarchive',
    access: 'customer:write',
    tags,
    summary: 'Make an archived customer active again',
    request: { params },
    responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
  }),
  async (c) => c.json(await setCustomerStatus(serviceContext(c), c.req.valid('param').id, 'unarchive'), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/partner',
    access: 'customer:write',
    tags,
    summary: 'Assign or remove the partner that is billed for this customer',
    request: { params, body: jsonBody(PartnerBodySchema) },
    responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
  }),
  async (c) => c.json(await setCustomerPartner(serviceContext(c), c.req.valid('param').id, c.req.valid('json').partner), 200),
);
