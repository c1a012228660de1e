import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema, listFilter, paginationQuery } from '../../http/pagination';
import { CART_STATUSES, CartSummarySchema } from '../../schemas/checkout';
import { listCarts } from '../../services/checkout/carts-list';

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
