import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { timestamp } from '../../http/schemas';
import { SubscriptionSchema } from '../../schemas/subscriptions';
import {
  activateSubscription,
  cancelSubscription,
  extendTrial,
  pauseSubscription,
  resumeSubscription,
  revokeCancellation,
  revokeTrial,
  terminateSubscription,
} from '../../services/subscriptions/lifecycle';
import { nullable, optionalBody, params, timestampOrBlank } from './requests';

// Status transitions of a subscription (docs/state-machines.md).

const tags = ['Subscriptions'];
const refused = 'Refused with 409 when the subscription is in a status that does not allow it (docs/state-machines.md).';
const subscription = { 200: jsonResponse(SubscriptionSchema, 'The subscription') };

export const subscriptionLifecycleRoutes = createRouter();

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/activate',
    access: 'subscription:write',
    tags,
    summary: 'Activate a draft: billing starts',
    description: refused,
    request: {
      params,
      body: optionalBody(z.strictObject({ trialDays: z.number().int().min(0).max(730).nullable().optional() }).openapi('SubscriptionActivate')),
    },
    responses: subscription,
  }),
  async (c) => c.json(await activateSubscription(serviceContext(c), c.req.valid('param').id, c.req.valid('json').trialDays ?? null), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/pause',
    access: 'subscription:write',
    tags,
    summary: 'Pause billing',
    description: refused,
    request: { params },
    responses: subscription,
  }),
  async (c) => c.json(await pauseSubscription(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/resume',
    access: 'subscription:write',
    tags,
    summary: 'Resume a paused subscription',
    description: `${refused} Without nextBillingDate (absent, null or "") the missed periods are billed; with it they are skipped.`,
    request: { params, body: optionalBody(z.strictObject({ nextBillingDate: timestampOrBlank }).openapi('SubscriptionResume')) },
    responses: subscription,
  }),
  async (c) => c.json(await resumeSubscription(serviceContext(c), c.req.valid('param').id, c.req.valid('json').nextBillingDate ?? null), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/cancel',
    access: 'subscription:write',
    tags,
    summary: 'Cancel now, at the next possible date, or on a chosen date',
    description: refused,
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({
            cancellationDateType: z.enum(['immediate', 'next_possible', 'custom']),
            cancellationDate: timestampOrBlank,
            reason: nullable(z.string().max(1000)).openapi({
              description: 'A cancellation reason id, a cancellation reason code, or free text (kept as cancellationReasonText); "" for none',
            }),
            sendConfirmationEmail: z.boolean().default(false),
          })
          .openapi('SubscriptionCancel'),
      ),
    },
    responses: subscription,
  }),
  async (c) => c.json(await cancelSubscription(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/revoke-cancellation',
    access: 'subscription:write',
    tags,
    summary: 'Revoke a pending cancellation',
    description: refused,
    request: { params },
    responses: subscription,
  }),
  async (c) => c.json(await revokeCancellation(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/terminate',
    access: 'subscription:write',
    tags,
    summary: 'Terminate at once: nothing more is billed',
    description: refused,
    request: { params },
    responses: subscription,
  }),
  async (c) => c.json(await terminateSubscription(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/extend-trial',
    access: 'subscription:write',
    tags,
    summary: 'Extend the trial',
    description: refused,
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({ trialDays: z.number().int().min(1).max(730).nullable().optional(), trialEndsOn: timestamp.nullable().optional() })
          .openapi('SubscriptionExtendTrial'),
      ),
    },
    responses: subscription,
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await extendTrial(serviceContext(c), c.req.valid('param').id, { trialDays: b.trialDays ?? null, trialEndsOn: b.trialEndsOn ?? null }), 200);
  },
);

subscriptionLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/revoke-trial',
    access: 'subscription:write',
    tags,
    summary: 'End the trial now',
    description: refused,
    request: { params },
    responses: subscription,
  }),
  async (c) => c.json(await revokeTrial(serviceContext(c), c.req.valid('param').id), 200),
);
