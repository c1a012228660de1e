import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { ApiError, zodViolations } from '../../http/errors';
import { applyMergePatch } from '../../http/merge-patch';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { durationText, idParam } from '../../http/schemas';
import { AFTER_CHECKOUT_ACTIONS, CheckoutLinkSchema, type CheckoutLinkResource } from '../../schemas/checkout';
import { checkoutLinkService, checkoutPath, SLUG_PATTERN, setLinkEnabled, type CheckoutLinkInput } from '../../services/checkout/links';
import { tenantPathSegment } from '../../services/platform/tenant-slug';
import type { Env } from '../../env';

const tags = ['Checkout links'];

// Fynn's form sends flags as "1"/"" and numbers as strings ("trialDays": "14"); both spellings are accepted.
const flag = z
  .union([z.boolean(), z.enum(['1', '0', 'true', 'false', ''])])
  .transform((v) => v === true || v === '1' || v === 'true')
  .openapi({ type: 'boolean' });
const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number().int(), z.string().regex(/^\d{1,9}$/, 'Must be a whole number.').transform(Number)])
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: 'integer', minimum: min, maximum: max });
// Buyers are sent there: web addresses only (no javascript:, data: or mailto:).
const url = z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048).nullable().optional();
const ref = z.string().min(1).max(64);

const ItemWriteSchema = z.strictObject({
  product: ref,
  pricePlan: ref.optional(),
  price: ref.optional().openapi({ description: 'Another name for pricePlan (Fynn: items[].price)' }),
  plan: ref.nullable().optional(),
  quantity: wholeNumber(0, 1_000_000).optional(),
  minQuantity: wholeNumber(0, 1_000_000).nullable().optional(),
  maxQuantity: wholeNumber(0, 1_000_000).nullable().optional(),
  periods: z.strictObject({ contractPeriod: durationText.nullable().optional(), cancellationPeriod: durationText.nullable().optional() }).nullable().optional(),
});

const CheckoutLinkWriteSchema = z
  .strictObject({
    slug: z.string().regex(SLUG_PATTERN, 'Must be 1 to 100 letters, digits, - or _, starting with a letter or digit.').nullable().optional(),
    isEnabled: flag.optional(),
    afterCheckout: z
      .strictObject({
        url,
        confirmationMessage: z.string().max(2000).nullable().optional(),
        action: z.enum(AFTER_CHECKOUT_ACTIONS).optional(),
        backToProviderUrl: url,
      })
      .optional(),
    options: z
      .strictObject({ trialDays: wholeNumber(0, 3650).optional(), allowCoupons: flag.optional(), quantityEditable: flag.optional(), forceCompany: flag.optional() })
      .optional(),
    items: z.array(ItemWriteSchema).min(1, 'A checkout link sells at least one item.').max(20),
  })
  .superRefine((b, ctx) => {
    b.items.forEach((i, n) => {
      if (!i.pricePlan && !i.price) ctx.addIssue({ code: 'custom', path: ['items', n, 'pricePlan'], message: 'The price plan is required.', params: { code: 'required' } });
      if (i.pricePlan && i.price && i.pricePlan !== i.price) ctx.addIssue({ code: 'custom', path: ['items', n, 'price'], message: 'Send the price plan once, as pricePlan or price.', params: { code: 'conflicting_alias' } });
    });
  })
  .transform(
    (b): CheckoutLinkInput => ({
      slug: b.slug ?? null,
      isEnabled: b.isEnabled ?? true,
      afterCheckout: {
        url: b.afterCheckout?.url ?? null,
        confirmationMessage: b.afterCheckout?.confirmationMessage ?? null,
        action: b.afterCheckout?.action ?? (b.afterCheckout?.url ? 'redirect' : b.afterCheckout?.confirmationMessage ? 'confirmation_message' : 'none'),
        backToProviderUrl: b.afterCheckout?.backToProviderUrl ?? null,
      },
      options: {
        trialDays: b.options?.trialDays ?? 0,
        allowCoupons: b.options?.allowCoupons ?? false,
        quantityEditable: b.options?.quantityEditable ?? false,
        forceCompany: b.options?.forceCompany ?? false,
      },
      items: b.items.map((i) => ({
        product: i.product,
        pricePlan: (i.pricePlan ?? i.price)!,
        plan: i.plan ?? null,
        quantity: i.quantity ?? 1,
        minQuantity: i.minQuantity ?? null,
        maxQuantity: i.maxQuantity ?? null,
        periods: i.periods ? { contractPeriod: i.periods.contractPeriod ?? null, cancellationPeriod: i.periods.cancellationPeriod ?? null } : null,
      })),
    }),
  )
  .openapi('CheckoutLinkWrite');

const params = z.object({ id: idParam('id', 'Checkout link id') });
/** The links' `url`s on this API's origin, naming the tenant by its public slug when it has one. */
async function linkUrls(c: { req: { url: string }; env: Env; var: { tenant: { id: string } } }): Promise<(link: CheckoutLinkResource) => CheckoutLinkResource> {
  const origin = new URL(c.req.url).origin;
  const tenant = await tenantPathSegment(c.env, c.var.tenant.id);
  return (link) => ({ ...link, url: origin + checkoutPath(tenant, link.slug) });
}

export const checkoutLinkRoutes = createRouter();

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/checkout-links',
    access: 'checkout-link:read',
    tags,
    summary: 'List checkout links',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(CheckoutLinkSchema, 'CheckoutLinkCollection'), 'A page of checkout links') },
  }),
  async (c) => {
    const page = await checkoutLinkService.list(serviceContext(c), c.req.valid('query'));
    return c.json({ ...page, data: page.data.map(await linkUrls(c)) }, 200);
  },
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/checkout-links',
    access: 'checkout-link:write',
    tags,
    summary: 'Create a checkout link',
    description:
      'Sells active price plans of unarchived products (of one active plan when `plan` is named) in one currency. `url` is the hosted page, `/checkout/{tenantSlug}/{slug}`, where the tenant slug is its public slug (PUT /settings/tenant-slug), else its id; a slug is unique per tenant and generated when not given. Buyers open carts at POST /public/checkout/links/{tenantSlug}/{slug}/cart.',
    request: { body: jsonBody(CheckoutLinkWriteSchema) },
    responses: { 201: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => c.json((await linkUrls(c))(await checkoutLinkService.create(serviceContext(c), c.req.valid('json'))), 201),
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/checkout-links/{id}',
    access: 'checkout-link:read',
    tags,
    summary: 'Get a checkout link',
    request: { params },
    responses: { 200: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => c.json((await linkUrls(c))(checkoutLinkService.render(await checkoutLinkService.find(serviceContext(c), c.req.valid('param').id))), 200),
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/checkout-links/{id}',
    access: 'checkout-link:write',
    tags,
    summary: 'Replace a checkout link',
    description: 'Carts already open keep what they were opened with.',
    request: { params, body: jsonBody(CheckoutLinkWriteSchema) },
    responses: { 200: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => c.json((await linkUrls(c))(await checkoutLinkService.update(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))), 200),
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/checkout-links/{id}',
    access: 'checkout-link:write',
    tags,
    summary: 'Change some fields of a checkout link (JSON merge patch)',
    request: { params, body: mergePatchBody(z.record(z.string(), z.unknown()).openapi('CheckoutLinkPatch')) },
    responses: { 200: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    const read = await checkoutLinkService.find(ctx, id);
    const parsed = CheckoutLinkWriteSchema.safeParse(applyMergePatch(checkoutLinkService.hooks.writable!(read), c.req.valid('json')));
    if (!parsed.success) throw ApiError.validation(zodViolations(parsed.error));
    return c.json((await linkUrls(c))(await checkoutLinkService.update(ctx, id, parsed.data, read)), 200);
  },
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/checkout-links/{id}/enable',
    access: 'checkout-link:write',
    tags,
    summary: 'Enable a checkout link',
    request: { params },
    responses: { 200: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => c.json((await linkUrls(c))(await setLinkEnabled(serviceContext(c), c.req.valid('param').id, true)), 200),
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/checkout-links/{id}/disable',
    access: 'checkout-link:write',
    tags,
    summary: 'Disable a checkout link',
    description: 'A disabled link opens no carts (404 on its public URL); carts already open can still be completed.',
    request: { params },
    responses: { 200: jsonResponse(CheckoutLinkSchema, 'The checkout link') },
  }),
  async (c) => c.json((await linkUrls(c))(await setLinkEnabled(serviceContext(c), c.req.valid('param').id, false)), 200),
);

checkoutLinkRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/checkout-links/{id}',
    access: 'checkout-link:write',
    tags,
    summary: 'Delete a checkout link',
    description: 'Its carts stay (listed by GET /checkout/carts); open ones can still be completed.',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await checkoutLinkService.remove(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
