import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createRouter, defineRoute, jsonBody, jsonResponse, jsonText, problem } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { AddressSchema } from '../../schemas/customers';
import { PaymentMethodSchema } from '../../schemas/payment-methods';
import { CardPreparationSchema, CartSchema, ConfirmCartResultSchema, type PublicCart } from '../../schemas/checkout';
import { PREFILL_KEYS } from '../../services/checkout/buyer';
import { cartInvoiceAddresses, cartPaymentMethods } from '../../services/checkout/customer-lists';
import {
  applyCoupon,
  changeQuantity,
  confirmCart,
  confirmCartOtp,
  openCart,
  prepareCard,
  settleCardAuthentication,
  readCartJson,
  removeCoupon,
  setBuyerDetails,
} from '../../services/checkout/public-carts';

// Public carts (no credentials; the cart id is a 192-bit random token). Fynn's paths. A customer
// session token in Authorization attaches a new cart to that customer and unlocks its stored
// addresses and payment methods; an API key there is ignored (the n8n node sends it everywhere).

const tags = ['Checkout'];
const cartParams = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: 'id', in: 'path' }, description: 'Cart id' }) });
const linkParams = z.object({
  tenantSlug: z.string().min(1).max(64).openapi({ param: { name: 'tenantSlug', in: 'path' }, description: 'The tenant: its public slug, or its id' }),
  slug: z.string().min(1).max(100).openapi({ param: { name: 'slug', in: 'path' }, description: "The link's slug" }),
});
const prefillQuery = z.object(Object.fromEntries(PREFILL_KEYS.map((k) => [k, z.string().max(255).optional()])) as Record<(typeof PREFILL_KEYS)[number], z.ZodOptional<z.ZodString>>);

/** A customer session's token from `Authorization: Bearer <jwt>`; an API key (no JWT) is not one. */
function customerToken(c: Context): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
  return m && m[1]!.split('.').length === 3 ? m[1]! : null;
}

const text = z.string().max(255).nullable().optional();
const AddressWriteSchema = z
  .strictObject({
    companyName: text,
    salutation: z.enum(['Firma', 'Herr', 'Frau']).nullable().optional(),
    firstName: text,
    lastName: text,
    vatId: text,
    street: text,
    houseNumber: text,
    zip: text,
    city: text,
    addition: text,
    countryCode: text,
    costCentre: text,
  })
  .openapi('CartAddressWrite');

const NewPaymentMethodSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('fake_provider'), token: z.string().max(64).nullable().optional() }),
    z.strictObject({
      type: z.literal('sepa_debit'),
      sepaDebit: z.strictObject({ iban: z.string().max(64), bic: z.string().max(16).nullable().optional(), accountHolder: z.string().max(140) }),
    }),
    z.strictObject({ type: z.literal('bank_transfer') }),
    z.strictObject({ type: z.literal('card'), token: z.string().min(1).max(255) }),
  ])
  .openapi('CartNewPaymentMethod');

const ConfirmSchema = z
  .strictObject({
    email: z.string().max(255).nullable().optional(),
    phone: z.string().max(255).nullable().optional(),
    invoiceAddressId: z.string().max(64).nullable().optional(),
    newInvoiceAddress: AddressWriteSchema.nullable().optional(),
    paymentMethodId: z.string().max(64).nullable().optional(),
    newPaymentMethod: NewPaymentMethodSchema.nullable().optional(),
    acceptTerms: z.boolean().nullable().optional().openapi({ description: "The buyer accepts the tenant's terms (required when the cart's seller has a termsUrl)." }),
  })
  .openapi('CartConfirm');

const quantity = z
  .union([z.number().int(), z.string().regex(/^\d{1,9}$/, 'Must be a whole number.').transform(Number)])
  .pipe(z.number().int().min(0).max(1_000_000_000))
  .openapi({ type: 'integer' });

const locked = problem('The cart is confirming or completed (cart-locked), or changed concurrently');

export const publicCheckoutRoutes = createRouter();

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/public/checkout/links/{tenantSlug}/{slug}/cart',
    access: 'public',
    rateLimit: 'public-create',
    tags,
    summary: 'Open a checkout link: a new cart',
    description:
      'Creates a cart from the enabled link (404 for an unknown or disabled one), prefilled from the query parameters (customerPrefill). With a customer session token as Bearer, the cart belongs to that customer. A cart lives 24 hours after its last change.',
    request: { params: linkParams, query: prefillQuery },
    responses: { 201: jsonResponse(CartSchema, 'The cart') },
  }),
  async (c) => {
    const { tenantSlug, slug } = c.req.valid('param');
    const prefill = Object.fromEntries(Object.entries(c.req.valid('query')).filter((e): e is [string, string] => typeof e[1] === 'string'));
    return c.json(await openCart(c.env, { tenantSlug, linkSlug: slug, prefill, customerToken: customerToken(c) }), 201);
  },
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/checkout/cart/{id}',
    access: 'public',
    tags,
    summary: 'Get a cart',
    description: "Answered by the cart's own Durable Object (no database read). 404 once the cart expired (24 hours after its last change).",
    request: { params: cartParams },
    responses: { 200: jsonResponse(CartSchema, 'The cart') },
  }),
  // The object holds the cart's JSON as it answers it: passed through as text, never parsed and written again.
  async (c) => jsonText<PublicCart, 200>(c, await readCartJson(c.env, c.req.valid('param').id), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/change-quantity',
    access: 'public',
    tags,
    summary: 'Change the quantity of a cart item',
    request: { params: cartParams, body: jsonBody(z.strictObject({ cartItemId: z.string().min(1).max(64), quantity }).openapi('CartChangeQuantity')) },
    responses: { 200: jsonResponse(CartSchema, 'The cart, priced again'), 409: locked },
  }),
  async (c) => c.json(await changeQuantity(c.env, c.req.valid('param').id, c.req.valid('json')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/coupon',
    access: 'public',
    tags,
    summary: 'Apply a coupon code',
    description: 'Only when the link allows coupons; the coupon must be valid for its plan and products (422 otherwise). Replaces an applied coupon.',
    request: { params: cartParams, body: jsonBody(z.strictObject({ code: z.string().min(1).max(255) }).openapi('CartCoupon')) },
    responses: { 200: jsonResponse(CartSchema, 'The cart, priced again'), 409: locked },
  }),
  async (c) => c.json(await applyCoupon(c.env, c.req.valid('param').id, c.req.valid('json')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/public/checkout/cart/{id}/coupon',
    access: 'public',
    tags,
    summary: 'Remove the coupon',
    request: { params: cartParams },
    responses: { 200: jsonResponse(CartSchema, 'The cart, priced again'), 409: locked },
  }),
  async (c) => c.json(await removeCoupon(c.env, c.req.valid('param').id), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/buyer',
    access: 'public',
    tags,
    summary: "Set the buyer's e-mail, phone and invoice address",
    description:
      'Taxes follow the address at once; a VAT id is checked (format, then the VAT registry: 422 `invoiceAddress.vatId` when either rejects it) and a registered one of another EU country makes a business sale reverse charge. `forceCompany` links require `invoiceAddress.companyName`.',
    request: {
      params: cartParams,
      body: jsonBody(
        z.strictObject({ email: z.string().max(255).nullable().optional(), phone: z.string().max(255).nullable().optional(), invoiceAddress: AddressWriteSchema.nullable().optional() }).openapi('CartBuyer'),
      ),
    },
    responses: { 200: jsonResponse(CartSchema, 'The cart, priced again'), 409: locked },
  }),
  async (c) => c.json(await setBuyerDetails(c.env, c.req.valid('param').id, c.req.valid('json')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/checkout/cart/{id}/invoice-addresses',
    access: 'public',
    tags,
    summary: "The logged-in customer's invoice addresses",
    description: "Needs the session token of the cart's customer as Bearer (401 without; another customer's cart is 404).",
    request: { params: cartParams, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(AddressSchema, 'CartInvoiceAddressCollection'), 'The addresses') },
  }),
  async (c) => c.json(await cartInvoiceAddresses(c.env, c.req.valid('param').id, customerToken(c), c.req.valid('query')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/checkout/cart/{id}/payment-methods',
    access: 'public',
    tags,
    summary: "The logged-in customer's usable payment methods",
    description: "Needs the session token of the cart's customer as Bearer (401 without; another customer's cart is 404). Masked as everywhere.",
    request: { params: cartParams, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(PaymentMethodSchema, 'CartPaymentMethodCollection'), 'The payment methods') },
  }),
  async (c) => c.json(await cartPaymentMethods(c.env, c.req.valid('param').id, customerToken(c), c.req.valid('query')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/confirm',
    access: 'public',
    // Makes a customer and a subscription, or mails a one-time code.
    rateLimit: 'public-create',
    tags,
    summary: 'Confirm a cart',
    description:
      'Completes the cart exactly once (a second confirm, also a concurrent one, is 409 cart-locked): the customer (or the logged-in one), its payment method, the active subscription with the link\'s trial, and the first invoice when something is due now, finalized and collected. Everything is checked before anything is made. An e-mail of an existing customer of this tenant answers `action: otp_required` and sends a one-time code to it; PUT …/confirm-otp completes. When the seller has terms (`seller.termsUrl`), `acceptTerms: true` is required and the acceptance is stored on the cart. A card charge that needs 3-D Secure answers `status: redirect_to_payment`: the cart waits until the charge is decided (PUT …/prepare-stripe gives the client secret; the gateway\'s webhook or PUT …/check-payment settles it).',
    request: { params: cartParams, body: jsonBody(ConfirmSchema) },
    responses: { 200: jsonResponse(ConfirmCartResultSchema, 'What the page does next'), 409: locked },
  }),
  async (c) => c.json(await confirmCart(c.env, c.req.valid('param').id, c.req.valid('json')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/confirm-otp',
    access: 'public',
    rateLimit: 'public-create',
    tags,
    summary: 'Confirm the one-time code of a cart',
    description: 'The code confirm sent to an existing customer\'s e-mail; a right one completes the cart for that customer. Wrong or expired: 401.',
    request: { params: cartParams, body: jsonBody(z.strictObject({ email: z.string().min(1).max(255), otp: z.string().min(1).max(255) }).openapi('CartConfirmOtp')) },
    responses: { 200: jsonResponse(CartSchema, 'The completed cart'), 409: locked },
  }),
  async (c) => c.json(await confirmCartOtp(c.env, c.req.valid('param').id, c.req.valid('json')), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/prepare-stripe',
    access: 'public',
    tags,
    summary: 'Prepare a cart for the card provider',
    description:
      "What the card gateway's client needs (its publishable key) to create a card payment method, whose id confirm then sends as newPaymentMethod {type: card, token}. For a cart in `redirect_to_payment` also the waiting charge's `clientSecret` and `paymentIntentId`, for the client to run the 3-D Secure challenge (Stripe.js `confirmCardPayment`). 409 gateway-unconfigured when the tenant has no card gateway.",
    request: { params: cartParams },
    responses: { 200: jsonResponse(CardPreparationSchema, 'For the card client'), 409: problem('No card gateway, or the cart is locked') },
  }),
  async (c) => c.json(await prepareCard(c.env, c.req.valid('param').id), 200),
);

publicCheckoutRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/public/checkout/cart/{id}/check-payment',
    access: 'public',
    tags,
    summary: "Settle a cart waiting for its charge's authentication",
    description:
      'For a cart in `redirect_to_payment`, after the card client ran the 3-D Secure challenge: the gateway is asked how the charge stands (the browser is not believed) and the cart follows: `paid`, `open` again without a payment method (the authentication failed), or still waiting. Any other cart is answered as it is.',
    request: { params: cartParams },
    responses: { 200: jsonResponse(CartSchema, 'The cart as it is now') },
  }),
  async (c) => c.json(await settleCardAuthentication(c.env, c.req.valid('param').id), 200),
);
