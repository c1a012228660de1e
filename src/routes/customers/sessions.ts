import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { CustomerSessionSchema } from '../../schemas/platform';
import { authenticateCustomer } from '../../services/platform/customer-sessions';
import { customerParams as params } from './requests';

export const customerSessionRoutes = createRouter();

customerSessionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customers/{id}/authenticate',
    access: 'customer:write',
    tags: ['Auth'],
    summary: 'Open a session for the customer area',
    description: 'Returns a short-lived access token (JWT) for the customer, a refresh token for POST /auth/refresh and a link into the customer area.',
    request: { params },
    responses: { 201: jsonResponse(CustomerSessionSchema, 'The session') },
  }),
  async (c) => c.json(await authenticateCustomer(serviceContext(c), c.req.valid('param').id, new URL(c.req.url).origin), 201),
);
