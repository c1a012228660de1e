import { z } from '@hono/zod-openapi';
import { identifyPublicTenant } from '../../http/auth';
import { serviceContext } from '../../http/context';
import { streamedAnswer } from '../../lib/background';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { emailAddress } from '../../http/schemas';
import { OtpRequestedSchema } from '../../schemas/customers';
import { CustomerSessionSchema } from '../../schemas/platform';
import { loginWithOtp, OTP, OTP_REQUESTED, requestOtpAfter } from '../../services/platform/customer-otp';

// The customer's one-time-code login. Public routes: the tenant comes from the Bearer credential
// when one is sent, else from X-Tenant-Id (identifyPublicTenant). The tenant is only known inside
// the handler, so Idempotency-Key does not apply here, and no reply (tokens!) is ever stored.

const tags = ['Auth'];
const tenantHeader = z.object({
  'x-tenant-id': z.string().max(64).optional().openapi({ description: 'The tenant, when no Bearer credential is sent' }),
});

const RequestOtpSchema = z.strictObject({ email: emailAddress }).openapi('CustomerOtpRequest');

const code = z.string().trim().min(1).max(32);
const OtpLoginSchema = z
  .strictObject({ email: emailAddress, code: code.optional(), otp: code.optional().openapi({ description: 'Another name for code' }) })
  .superRefine((b, ctx) => {
    if (b.code === undefined && b.otp === undefined) ctx.addIssue({ code: 'custom', path: ['code'], message: 'The code from the e-mail is required.', params: { code: 'required' } });
    if (b.code !== undefined && b.otp !== undefined) ctx.addIssue({ code: 'custom', path: ['otp'], message: 'Send the code once, as code or as otp.', params: { code: 'conflicting_alias' } });
  })
  .openapi('CustomerOtpLogin');

export const customerOtpRoutes = createRouter();

customerOtpRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/public/customer/request-otp',
    access: 'public',
    rateLimit: 'public-create',
    tags,
    summary: 'Send a one-time login code to a customer',
    description:
      `Sends a ${OTP.digits}-digit code, valid for ${OTP.ttlMs / 60_000} minutes and ${OTP.maxAttempts} tries, to the active customer whose login ` +
      `e-mail this is (at most ${OTP.maxCodesPerWindow} codes an hour). ` +
      'Always answers {"success": true} at once, before the address is even looked up (the code is mailed afterwards), so neither the answer nor its timing tells whether the address is a customer\'s. ' +
      'The tenant is that of the Bearer API key when one is sent, else the X-Tenant-Id header.',
    request: { headers: tenantHeader, body: jsonBody(RequestOtpSchema) },
    responses: { 200: jsonResponse(OtpRequestedSchema, 'Accepted; a code was sent if the address is an active customer\'s') },
  }),
  async (c) => {
    await identifyPublicTenant(c);
    const { response, answered } = await streamedAnswer(c.json(OTP_REQUESTED, 200));
    requestOtpAfter(serviceContext(c), c.req.valid('json').email, answered);
    return response;
  },
);

customerOtpRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/public/customer/otp-login',
    access: 'public',
    rateLimit: 'public-create',
    tags,
    summary: 'Exchange e-mail and one-time code for a customer session',
    description:
      'Returns the tokens of POST /customers/{id}/authenticate. A code works once; a wrong, expired or used code, or an unknown e-mail, is 401 alike.',
    request: { headers: tenantHeader, body: jsonBody(OtpLoginSchema) },
    responses: { 200: jsonResponse(CustomerSessionSchema, 'The session') },
  }),
  async (c) => {
    await identifyPublicTenant(c);
    const body = c.req.valid('json');
    return c.json(await loginWithOtp(serviceContext(c), body.email, (body.code ?? body.otp)!, new URL(c.req.url).origin), 200);
  },
);
