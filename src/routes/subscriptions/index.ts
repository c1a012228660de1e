import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery, sortDirection } from '../../http/pagination';
import { customFieldValues, decimalString, durationText, idParam, optionalText, timestamp } from '../../http/schemas';
import { listSubscriptionEntitlements } from '../../services/subscriptions/entitlements';
import { estimatedAmount } from '../../services/billing/estimates';
import { type CancelInput, activateSubscription, cancelSubscription, extendTrial, pauseSubscription, resumeSubscription, revokeCancellation, revokeTrial, terminateSubscription } from '../../services/subscriptions/lifecycle';
import { setInvoiceAddress } from '../../services/subscriptions/details';
import { addComment, deleteSubscription, listComments, orderProducts, setPaymentMethod } from '../../services/subscriptions/details';
import { createSubscription } from '../../services/subscriptions/create';
import { createSubscriptionFromPlan } from '../../services/subscriptions/from-plan';
import { listSubscriptions } from '../../services/subscriptions/list';
import { loadSubscription, renderSubscription } from '../../services/subscriptions/aggregate';
import { updateSubscription } from '../../services/subscriptions/update';
import { ingestUsage, USAGE_BATCH_LIMIT } from '../../services/subscriptions/usage';
import { estimatedInvoice } from '../../services/billing/estimates';
import { ApiError } from '../../http/errors';
import { InvoiceSchema } from '../invoices/index';
import { EntitlementSchema } from '../entitlements/schemas';

const tags = ['Subscriptions'];
const params = z.object({ id: idParam('id', 'Subscription id') });
const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);
const ref = nullable(z.string().min(1).max(64));
const quantity = decimalString(4)
  .refine((v) => /[1-9]/.test(v), { message: 'Must be greater than 0.', params: { code: 'too_small' } })
  .default('1');

export const ItemSchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    parent: z.string().nullable(),
    type: z.enum(['item', 'addon', 'charge']),
    status: z.enum(['active', 'canceled', 'pending', 'terminated']),
    product: z.object({ id: z.string(), name: z.string() }),
    pricePlan: z.object({ id: z.string(), type: z.string(), billingInterval: z.string().nullable(), payInAdvance: z.boolean() }),
    plan: z.string().nullable(),
    quantity: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    furtherInformation: z.string().nullable(),
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    activatedAt: z.string().nullable(),
    inheritedPeriod: z.boolean(),
    billing: z.object({
      lastBilledAt: z.string().nullable(),
      lastBilledFrom: z.string().nullable(),
      lastBilledTo: z.string().nullable(),
      nextBillingAt: z.string().nullable(),
      billingInterval: z.string().nullable(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('SubscriptionItem');

const anyObject = z.record(z.string(), z.unknown());

export const SubscriptionSchema = z
  .object({
    id: z.string(),
    externalId: z.string().nullable(),
    number: z.string(),
    name: z.string(),
    status: z.enum(['draft', 'active', 'paused', 'cancelled', 'terminated', 'offer']),
    customer: anyObject,
    plan: anyObject.nullable(),
    items: z.array(ItemSchema),
    billingGroup: anyObject.nullable(),
    periods: z.array(anyObject),
    paymentMethod: anyObject.nullable(),
    defaultPaymentMethod: z.boolean(),
    invoiceAddress: anyObject.nullable(),
    defaultInvoiceAddress: z.boolean(),
    poNumber: z.string().nullable(),
    contractDetails: z.object({ contractStart: z.string(), contractEnd: z.string().nullable() }),
    trialDays: z.number().int(),
    trialEndsOn: z.string().nullable(),
    activatedAt: z.string().nullable(),
    pausedAt: z.string().nullable(),
    nextBillingDate: z.string().nullable(),
    lastBillingAt: z.string().nullable(),
    cancellationDate: z.string().nullable(),
    cancelledAt: z.string().nullable(),
    cancellationReason: anyObject.nullable(),
    isCancellationPending: z.boolean(),
    nextPossibleCancellationDate: z.array(z.string()),
    appliedDiscounts: z.array(anyObject),
    partner: anyObject.nullable(),
    customFields: anyObject.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Subscription');

const ItemInputSchema = z.strictObject({ product: z.string().min(1).max(64), pricePlan: z.string().min(1).max(64), quantity }).openapi('SubscriptionItemInput');

const SubscriptionWriteSchema = z
  .strictObject({
    customer: z.string().min(1).max(64),
    plan: ref,
    items: z.array(ItemInputSchema).min(1, 'A subscription needs at least one item.').max(100),
    name: optionalText(1, 255),
    number: optionalText(2, 255),
    externalId: optionalText(1, 255),
    contractDetails: nullable(z.strictObject({ contractStart: nullable(timestamp) })),
    periods: nullable(z.strictObject({ contractPeriod: nullable(durationText), cancellationPeriod: nullable(durationText) })),
    billingGroup: ref,
    trialDays: z.number().int().min(0).max(730).default(0),
    paymentMethod: ref,
    invoiceAddress: ref,
    poNumber: optionalText(1, 255),
    customFields: customFieldValues,
    coupons: z.array(z.string().min(1).max(64)).max(10).default([]),
  })
  .openapi('SubscriptionWrite');

type WriteBody = z.infer<typeof SubscriptionWriteSchema>;
const toInput = (b: WriteBody) => ({
  customer: b.customer,
  plan: b.plan,
  items: b.items,
  name: b.name,
  number: b.number,
  externalId: b.externalId,
  contractStart: b.contractDetails?.contractStart ? new Date(b.contractDetails.contractStart).toISOString() : null,
  contractPeriod: b.periods?.contractPeriod ?? null,
  cancellationPeriod: b.periods?.cancellationPeriod ?? null,
  billingGroup: b.billingGroup,
  trialDays: b.trialDays,
  paymentMethod: b.paymentMethod,
  invoiceAddress: b.invoiceAddress,
  poNumber: b.poNumber,
  customFields: b.customFields,
  coupons: b.coupons,
});

const many = (name: string) => ({
  [name]: z.string().max(255).optional(),
  [`${name}[]`]: z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]).optional(),
});
const list = (q: Record<string, unknown>, name: string): string[] | undefined => {
  const values = [q[name], q[`${name}[]`]].flat().filter((v): v is string => typeof v === 'string' && v !== '');
  return values.length ? values : undefined;
};
const statusValues = ['draft', 'active', 'paused', 'cancelled', 'terminated', 'offer'];

export const subscriptionRoutes = createRouter();

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/measurements',
    access: 'subscription:write',
    tags: ['Usage'],
    summary: 'Report usage events (up to 1,000 a batch)',
    description:
      'Each event names its subscriptionItem, or its customer and measurement code. An event id counts once per tenant for 35 days (repeats are reported as duplicates). Bad events are reported by index without losing the good ones.',
    request: {
      body: jsonBody(
        z
          .strictObject({
            events: z
              .array(
                z.strictObject({
                  id: z.string().min(1).max(255),
                  subscriptionItem: ref,
                  customer: ref,
                  measurement: nullable(z.string().min(1).max(255)),
                  quantity: z
                    .union([z.string(), z.number()])
                    .transform((v) => (typeof v === 'number' ? String(v) : v))
                    .pipe(z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, 'Must be a number from 0 to 999999999 with at most 6 decimals.')),
                  measuredAt: nullable(timestamp),
                  uniqueId: nullable(z.string().min(1).max(255)),
                }),
              )
              .min(1)
              .max(USAGE_BATCH_LIMIT, `At most ${USAGE_BATCH_LIMIT} events a batch.`),
          })
          .superRefine((b, ctx) => {
            b.events.forEach((e, i) => {
              if (e.subscriptionItem === null && (e.customer === null || e.measurement === null)) {
                ctx.addIssue({ code: 'custom', path: ['events', i, 'subscriptionItem'], message: 'Name the subscriptionItem, or the customer and the measurement code.' });
              }
            });
          })
          .openapi('UsageBatch'),
      ),
    },
    responses: {
      200: jsonResponse(
        z
          .object({
            received: z.number().int(),
            accepted: z.number().int(),
            duplicates: z.number().int(),
            rejected: z.array(z.object({ index: z.number().int(), id: z.string().nullable(), violations: z.array(z.object({ propertyPath: z.string(), message: z.string(), code: z.string() })) })),
          })
          .openapi('UsageBatchResult'),
        'What was stored',
      ),
    },
  }),
  async (c) => c.json(await ingestUsage(serviceContext(c), c.req.valid('json').events), 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions',
    access: 'subscription:read',
    tags,
    summary: 'List subscriptions',
    request: {
      query: z.object({
        ...paginationQuery,
        ...many('id'),
        ...many('customer'),
        number: z.string().max(255).optional(),
        ...many('status'),
        ...many('paymentMethod.type'),
        ...many('items.product.id'),
        partner: z.string().max(64).optional(),
        'order[status]': sortDirection.optional(),
        'order[createdAt]': sortDirection.optional(),
        'order[activatedAt]': sortDirection.optional(),
        'order[trialEndsOn]': sortDirection.optional(),
        'order[contractDetails.contractEnd]': sortDirection.optional(),
      }),
    },
    responses: { 200: jsonResponse(collectionSchema(SubscriptionSchema, 'SubscriptionCollection'), 'A page of subscriptions') },
  }),
  async (c) => {
    const q = c.req.valid('query') as Record<string, unknown> & { page: number; limit: number };
    const statuses = list(q, 'status');
    const unknown = statuses?.find((s) => !statusValues.includes(s));
    const param = list(q, 'status[]')?.includes(unknown ?? '') ? 'status[]' : 'status';
    if (unknown) throw ApiError.badRequest('Invalid query parameters.', [{ propertyPath: param, message: `Unknown status "${unknown}"; use ${statusValues.join(', ')}.`, code: 'invalid_value' }]);
    const order = (['status', 'createdAt', 'activatedAt', 'trialEndsOn', 'contractDetails.contractEnd'] as const)
      .filter((f) => q[`order[${f}]`])
      .map((f) => ({ field: f === 'contractDetails.contractEnd' ? ('contractEnd' as const) : f, dir: q[`order[${f}]`] as 'asc' | 'desc' }));
    return c.json(
      (await listSubscriptions(serviceContext(c), {
        page: q.page,
        limit: q.limit,
        ids: list(q, 'id'),
        customers: list(q, 'customer'),
        number: q.number as string | undefined,
        statuses: statuses as never,
        paymentMethodTypes: list(q, 'paymentMethod.type'),
        productIds: list(q, 'items.product.id'),
        partner: q.partner as string | undefined,
        order,
      })) as never,
      200,
    );
  },
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions',
    access: 'subscription:write',
    tags,
    summary: 'Create a subscription (as a draft)',
    description: 'A number like S-00000001 is generated when none is given. Activate it with PUT /subscriptions/{id}/activate.',
    request: { body: jsonBody(SubscriptionWriteSchema) },
    responses: { 201: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json((await createSubscription(serviceContext(c), toInput(c.req.valid('json')))) as never, 201),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/from-plan',
    access: 'subscription:write',
    tags,
    summary: 'Create a subscription from a plan (as a draft)',
    description: "The plan's items are taken as they are; planItemSelections choose its add-ons and their quantities (within the plan's limits).",
    request: {
      body: jsonBody(
        z
          .strictObject({
            customer: z.string().min(1).max(64),
            planCode: z.string().min(1).max(64),
            planItemSelections: z
              .array(z.strictObject({ product: z.string().min(1).max(64), pricePlan: ref, quantity }))
              .max(50)
              .default([]),
            name: optionalText(1, 255),
            number: optionalText(2, 255),
            paymentMethod: ref,
            customFields: customFieldValues,
            trialDays: z.number().int().min(0).max(730).default(0),
            coupons: z.array(z.string().min(1).max(64)).max(10).default([]),
          })
          .openapi('SubscriptionFromPlan'),
      ),
    },
    responses: { 201: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json((await createSubscriptionFromPlan(serviceContext(c), c.req.valid('json'))) as never, 201),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}',
    access: 'subscription:read',
    tags,
    summary: 'Get a subscription',
    request: { params },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    return c.json(renderSubscription(await loadSubscription(ctx, c.req.valid('param').id), ctx.now) as never, 200);
  },
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}',
    access: 'subscription:write',
    tags,
    summary: 'Replace a subscription',
    description: 'A draft can change everything; afterwards only name, externalId, poNumber and customFields (other changes are 409: use the operations).',
    request: { params, body: jsonBody(SubscriptionWriteSchema) },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json((await updateSubscription(serviceContext(c), c.req.valid('param').id, toInput(c.req.valid('json')))) as never, 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/subscriptions/{id}',
    access: 'subscription:write',
    tags,
    summary: 'Delete a draft subscription',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteSubscription(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

const optionalBody = <T extends z.ZodTypeAny>(schema: T) => ({ required: false, content: { 'application/json': { schema } } });

const operations = [
  {
    path: 'activate',
    summary: 'Activate a draft: billing starts',
    body: z.strictObject({ trialDays: z.number().int().min(0).max(730).nullable().optional() }).openapi('SubscriptionActivate'),
    run: (ctx: Parameters<typeof activateSubscription>[0], id: string, b: { trialDays?: number | null }) =>
      activateSubscription(ctx, id, b.trialDays ?? null),
  },
  { path: 'pause', summary: 'Pause billing', body: null, run: (ctx: never, id: string) => pauseSubscription(ctx, id) },
  {
    path: 'resume',
    summary: 'Resume a paused subscription',
    body: z.strictObject({ nextBillingDate: timestamp.nullable().optional() }).openapi('SubscriptionResume'),
    run: (ctx: never, id: string, b: { nextBillingDate?: string | null }) => resumeSubscription(ctx, id, b.nextBillingDate ?? null),
  },
  {
    path: 'cancel',
    summary: 'Cancel now, at the next possible date, or on a chosen date',
    body: z
      .strictObject({
        cancellationDateType: z.enum(['immediate', 'next_possible', 'custom']),
        cancellationDate: nullable(timestamp),
        reason: ref,
        sendConfirmationEmail: z.boolean().default(false),
      })
      .openapi('SubscriptionCancel'),
    required: true,
    run: (ctx: never, id: string, b: CancelInput) => cancelSubscription(ctx, id, b),
  },
  { path: 'revoke-cancellation', summary: 'Revoke a pending cancellation', body: null, run: (ctx: never, id: string) => revokeCancellation(ctx, id) },
  { path: 'terminate', summary: 'Terminate at once: nothing more is billed', body: null, run: (ctx: never, id: string) => terminateSubscription(ctx, id) },
  {
    path: 'extend-trial',
    summary: 'Extend the trial',
    body: z
      .strictObject({ trialDays: z.number().int().min(1).max(730).nullable().optional(), trialEndsOn: timestamp.nullable().optional() })
      .openapi('SubscriptionExtendTrial'),
    required: true,
    run: (ctx: never, id: string, b: { trialDays?: number | null; trialEndsOn?: string | null }) =>
      extendTrial(ctx, id, { trialDays: b.trialDays ?? null, trialEndsOn: b.trialEndsOn ?? null }),
  },
  { path: 'revoke-trial', summary: 'End the trial now', body: null, run: (ctx: never, id: string) => revokeTrial(ctx, id) },
  {
    path: 'invoice-address',
    summary: 'Set the invoice address (null: the customer default)',
    body: z.strictObject({ invoiceAddress: z.string().min(1).max(64).nullable() }).openapi('SubscriptionInvoiceAddress'),
    required: true,
    run: (ctx: never, id: string, b: { invoiceAddress: string | null }) => setInvoiceAddress(ctx, id, b.invoiceAddress),
  },
] as const;

for (const op of operations) {
  subscriptionRoutes.openapi(
    defineRoute({
      method: 'put',
      path: `/subscriptions/{id}/${op.path}`,
      access: 'subscription:write',
      tags,
      summary: op.summary,
      description: 'Refused with 409 when the subscription is in a status that does not allow it (docs/state-machines.md).',
      request: op.body ? { params, body: 'required' in op ? jsonBody(op.body as z.ZodTypeAny) : optionalBody(op.body as z.ZodTypeAny) } : { params },
      responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
    }),
    async (c) => {
      const body = op.body ? ((c.req.valid('json' as never) as Record<string, unknown> | undefined) ?? {}) : {};
      const run = op.run as (ctx: ReturnType<typeof serviceContext>, id: string, b: unknown) => Promise<unknown>;
      return c.json((await run(serviceContext(c), c.req.valid('param').id, body)) as never, 200);
    },
  );
}

subscriptionRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/subscriptions/{id}/payment-method',
    access: 'subscription:write',
    tags,
    summary: 'Set the payment method (null: the customer default)',
    request: {
      params,
      body: { required: true, content: { 'application/merge-patch+json': { schema: z.strictObject({ paymentMethodId: z.string().min(1).max(64).nullable() }).openapi('SubscriptionPaymentMethod') } } },
    },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json((await setPaymentMethod(serviceContext(c), c.req.valid('param').id, c.req.valid('json').paymentMethodId)) as never, 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/{id}/products',
    access: 'subscription:write',
    tags,
    summary: 'Order add-ons and one-time charges',
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({
            billingStart: nullable(timestamp),
            startDate: nullable(timestamp),
            endDate: nullable(timestamp),
            products: z.array(ItemInputSchema).min(1).max(50),
          })
          .openapi('SubscriptionOrderProducts'),
      ),
    },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json((await orderProducts(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))) as never, 200),
);

const CommentSchema = z.object({ id: z.string(), text: z.string(), author: z.string().nullable(), createdAt: z.string() }).openapi('SubscriptionComment');

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/{id}/comments',
    access: 'subscription:write',
    tags,
    summary: 'Add a comment',
    request: { params, body: jsonBody(z.strictObject({ text: z.string().trim().min(1).max(10_000), author: optionalText(1, 255) }).openapi('SubscriptionCommentWrite')) },
    responses: { 201: jsonResponse(CommentSchema, 'The comment') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await addComment(serviceContext(c), c.req.valid('param').id, b.text, b.author), 201);
  },
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/comments',
    access: 'subscription:read',
    tags,
    summary: 'List comments',
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(CommentSchema, 'SubscriptionCommentCollection'), 'Comments') },
  }),
  async (c) => c.json(await listComments(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/estimated-amount',
    access: 'subscription:read',
    tags,
    summary: 'The net amount of the next invoice',
    description: 'Recurring fees of the next period, usage so far, quantities and coupon discounts; net of tax.',
    request: { params },
    responses: { 200: jsonResponse(z.object({ amount: z.string(), currencyCode: z.string() }).openapi('Money'), 'Net amount') },
  }),
  async (c) => c.json(await estimatedAmount(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/estimated-invoice',
    access: 'subscription:read',
    tags,
    summary: 'The next invoice as billing would compose it (not stored)',
    description: 'At the next billing date, with usage as measured so far. 404 when nothing is going to be billed (a draft, a terminated subscription).',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The invoice it would be') },
  }),
  async (c) => {
    const invoice = await estimatedInvoice(serviceContext(c), c.req.valid('param').id);
    if (!invoice) throw ApiError.notFound('Upcoming invoice');
    return c.json(invoice as never, 200);
  },
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/entitlements',
    access: 'subscription:read',
    tags: ['Entitlements'],
    summary: "The subscription's entitlements, per item",
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(EntitlementSchema, 'EntitlementCollection'), 'Entitlements') },
  }),
  async (c) => c.json((await listSubscriptionEntitlements(serviceContext(c), c.req.valid('param').id, c.req.valid('query'))) as never, 200),
);
