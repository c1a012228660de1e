import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema, listFilter, paginationQuery } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import { CART_STATUSES, CartSchema, CartSummarySchema } from '../../schemas/checkout';
import { getCart, listCarts } from '../../services/checkout/carts-list';

export const checkoutCartRoutes = createRouter();

checkoutCartRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/checkout/carts',
    access: 'cart:read',
    tags: ['Checkout'],
    summary: "List the tenant's carts",
    description: 'Newest first. `status` (repeatable, or `status[]`): open, confirming, completed, paid; completed carts are `status[]=completed&status[]=paid`.',
    request: {
      query: z.object({ ...paginationQuery, ...listFilter('status', z.enum(CART_STATUSES)), checkoutLink: z.string().max(64).optional() }),
    },
    responses: { 200: jsonResponse(collectionSchema(CartSummarySchema, 'CartCollection'), 'A page of carts') },
  }),
  async (c) => c.json(await listCarts(serviceContext(c), c.req.valid('query')), 200),
);

checkoutCartRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/checkout/carts/{id}',
    access: 'cart:read',
    tags: ['Checkout'],
    summary: 'Get one of the tenant\'s carts',
    description: 'The cart as its buyer sees it (the public read), also once completed or expired while its record is kept (30 days after expiry for a cart never completed); an open cart past its expiry shows `expired`.',
    request: { params: z.object({ id: idParam('id', 'Cart id') }) },
    responses: { 200: jsonResponse(CartSchema, 'The cart') },
  }),
  async (c) => c.json(await getCart(serviceContext(c), c.req.valid('param').id), 200),
);
