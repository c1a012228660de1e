import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { AddressSchema } from '../../schemas/customers';
import { createAddress, deleteAddress, getAddress, listAddresses, updateAddress } from '../../services/customers/addresses';
import { addressParams, AddressUpdateSchema, AddressWriteSchema, customerParams as params } from './requests';

const tags = ['Customers'];

export const customerAddressRoutes = createRouter();

customerAddressRoutes.openapi(
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
  async (c) => c.json(await listAddresses(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

customerAddressRoutes.openapi(
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
  async (c) => c.json(await createAddress(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);

customerAddressRoutes.openapi(
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
    return c.json(await getAddress(serviceContext(c), p.id, p.addressId), 200);
  },
);

customerAddressRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customers/{id}/addresses/{addressId}',
    access: 'customer:write',
    tags,
    summary: 'Update an address',
    description: 'The fields sent change; fields not sent keep their values.',
    request: { params: addressParams, body: jsonBody(AddressUpdateSchema) },
    responses: { 200: jsonResponse(AddressSchema, 'The address') },
  }),
  async (c) => {
    const p = c.req.valid('param');
    return c.json(await updateAddress(serviceContext(c), p.id, p.addressId, c.req.valid('json')), 200);
  },
);

customerAddressRoutes.openapi(
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
    await deleteAddress(serviceContext(c), p.id, p.addressId);
    return c.body(null, 204);
  },
);
