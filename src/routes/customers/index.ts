import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { ApiError, zodViolations } from '../../http/errors';
import { applyMergePatch } from '../../http/merge-patch';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery, sortDirection } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import * as addresses from '../../services/customers/addresses';
import { authenticateCustomer } from '../../services/platform/customer-sessions';
import { createCustomer } from '../../services/customers/create';
import { deleteCustomer, getBillingSettings, setCustomerPartner, setCustomerStatus, updateBillingSettings, updateCustomer, writableCustomer } from '../../services/customers/update';
import { listCustomers, loadCustomer } from '../../services/customers/read';
import { renderCustomer } from '../../services/customers/render';
import {
  AddressSchema,
  AddressWriteSchema,
  BillingSettingsPatchSchema,
  BillingSettingsSchema,
  CustomerCreateSchema,
  CustomerPatchSchema,
  CustomerSchema,
  CustomerUpdateSchema,
  EmailAddressSchema,
  EmailWriteSchema,
  PartnerBodySchema,
  SessionSchema,
} from './schemas';

const tags = ['Customers'];
const id = idParam('id', 'Customer id');
const params = z.object({ id });
const addressParams = z.object({ id, addressId: idParam('addressId', 'Address id') });
const emailParams = z.object({ id, emailId: idParam('emailId', 'E-mail address id') });

export const customerRoutes = createRouter();

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers',
    access: 'customer:read',
    tags,
    summary: 'List customers',
    request: {
      query: z.object({
        ...paginationQuery,
        search: z.string().max(255).optional().openapi({ description: 'Matches name, company, e-mail and customer number' }),
        status: z.enum(['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED']).optional(),
        customerNumber: z.string().max(255).optional(),
        email: z.string().max(255).optional(),
        'order[createdAt]': sortDirection.optional(),
        'order[customerNumber]': sortDirection.optional(),
      }),
    },
    responses: { 200: jsonResponse(collectionSchema(CustomerSchema, 'CustomerCollection'), 'A page of customers') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const result = await listCustomers(serviceContext(c), {
      page: q.page,
      limit: q.limit,
      search: q.search || undefined,
      status: q.status,
      customerNumber: q.customerNumber || undefined,
      email: q.email || undefined,
      orderCreatedAt: q['order[createdAt]'],
      orderCustomerNumber: q['order[customerNumber]'],
    });
    return c.json(result, 200);
  },
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
    summary: 'Replace a customer',
    description: 'Addresses and e-mail addresses change through their own sub-resources.',
    request: { params, body: jsonBody(CustomerUpdateSchema) },
    responses: { 200: jsonResponse(CustomerSchema, 'The updated customer') },
  }),
  async (c) => c.json(await updateCustomer(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
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
    const current = writableCustomer(await loadCustomer(ctx, customerId));
    const parsed = CustomerUpdateSchema.safeParse(applyMergePatch(current, c.req.valid('json')));
    if (!parsed.success) throw ApiError.validation(zodViolations(parsed.error));
    return c.json(await updateCustomer(ctx, customerId, parsed.data), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/customers/{id}',
    access: 'customer:write',
    tags,
    summary: 'Delete a customer without documents',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteCustomer(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

for (const action of ['archive', 'unarchive'] as const) {
  customerRoutes.openapi(
    defineRoute({
      method: 'put',
      path: `/customers/{id}/${action}`,
      access: 'customer:write',
      tags,
      summary: action === 'archive' ? 'Archive a customer' : 'Make an archived customer active again',
      request: { params },
      responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
    }),
    async (c) => c.json(await setCustomerStatus(serviceContext(c), c.req.valid('param').id, action), 200),
  );
}

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

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/settings/billing',
    access: 'customer:read',
    tags,
    summary: "Get a customer's billing settings",
    request: { params },
    responses: { 200: jsonResponse(BillingSettingsSchema, 'Billing settings; null inherits the tenant setting') },
  }),
  async (c) => c.json(await getBillingSettings(serviceContext(c), c.req.valid('param').id), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/customers/{id}/settings/billing',
    access: 'customer:write',
    tags,
    summary: "Change a customer's billing settings",
    request: { params, body: mergePatchBody(BillingSettingsPatchSchema) },
    responses: { 200: jsonResponse(BillingSettingsSchema, 'Billing settings') },
  }),
  async (c) =>
    c.json(await updateBillingSettings(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customers/{id}/authenticate',
    access: 'customer:write',
    tags: ['Auth'],
    summary: 'Open a session for the customer area',
    description: 'Returns a short-lived access token (JWT) for the customer, a refresh token for POST /auth/refresh and a link into the customer area.',
    request: { params },
    responses: { 201: jsonResponse(SessionSchema, 'The session') },
  }),
  async (c) => c.json(await authenticateCustomer(serviceContext(c), c.req.valid('param').id, new URL(c.req.url).origin), 201),
);

// Addresses

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/addresses',
    access: 'customer:read',
    customerSelf: 'id',
    tags,
    summary: "List a customer's addresses",
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(AddressSchema, 'AddressCollection'), 'Addresses') },
  }),
  async (c) => c.json(await addresses.listAddresses(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

customerRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customers/{id}/addresses',
    access: 'customer:write',
    tags,
    summary: 'Add an address',
    description: 'The first address of a type becomes its default; `default: true` replaces the current default of that type.',
    request: { params, body: jsonBody(AddressWriteSchema) },
    responses: { 201: jsonResponse(AddressSchema, 'The address') },
  }),
  async (c) => c.json(await addresses.createAddress(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);

customerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/addresses/{addressId}',
    access: 'customer:read',
    customerSelf: 'id',
    tags,
    summary: 'Get an address',
    request: { params: addressParams },
    responses: { 200: jsonResponse(AddressSchema, 'The address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await addresses.getAddress(serviceContext(c), p.id, p.addressId), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/addresses/{addressId}',
    access: 'customer:write',
    tags,
    summary: 'Replace an address',
    request: { params: addressParams, body: jsonBody(AddressWriteSchema) },
    responses: { 200: jsonResponse(AddressSchema, 'The address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await addresses.updateAddress(serviceContext(c), p.id, p.addressId, c.req.valid('json')), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/customers/{id}/addresses/{addressId}',
    access: 'customer:write',
    tags,
    summary: 'Delete an address (not the default address)',
    request: { params: addressParams },
    responses: { 204: noContent },
  }),
  async (c) => {
    const p = c.req.valid('param');
    await addresses.deleteAddress(serviceContext(c), p.id, p.addressId);
    return c.body(null, 204);
  },
);

// E-mail addresses

customerRoutes.openapi(
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
  async (c) => c.json(await addresses.listEmails(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

customerRoutes.openapi(
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
  async (c) => c.json(await addresses.createEmail(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);

customerRoutes.openapi(
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
    return c.json(await addresses.getEmail(serviceContext(c), p.id, p.emailId), 200);
  },
);

customerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/email-addresses/{emailId}',
    access: 'customer:write',
    tags,
    summary: 'Replace an e-mail address',
    request: { params: emailParams, body: jsonBody(EmailWriteSchema) },
    responses: { 200: jsonResponse(EmailAddressSchema, 'The e-mail address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await addresses.updateEmail(serviceContext(c), p.id, p.emailId, c.req.valid('json')), 200);
  },
);

customerRoutes.openapi(
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
    await addresses.deleteEmail(serviceContext(c), p.id, p.emailId);
    return c.body(null, 204);
  },
);
