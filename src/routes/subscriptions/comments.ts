import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { optionalText } from '../../http/schemas';
import { SubscriptionCommentSchema } from '../../schemas/subscriptions';
import { addComment, listComments } from '../../services/subscriptions/details';
import { params } from './requests';

const tags = ['Subscriptions'];

export const subscriptionCommentRoutes = createRouter();

subscriptionCommentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/{id}/comments',
    access: 'subscription:write',
    tags,
    summary: 'Add a comment',
    request: { params, body: jsonBody(z.strictObject({ text: z.string().trim().min(1).max(10_000), author: optionalText(1, 255) }).openapi('SubscriptionCommentWrite')) },
    responses: { 201: jsonResponse(SubscriptionCommentSchema, 'The comment') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await addComment(serviceContext(c), c.req.valid('param').id, b.text, b.author), 201);
  },
);

subscriptionCommentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/comments',
    access: 'subscription:read',
    tags,
    summary: 'List comments',
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(SubscriptionCommentSchema, 'SubscriptionCommentCollection'), 'Comments') },
  }),
  async (c) => c.json(await listComments(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);
