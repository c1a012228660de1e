import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse, mergePatchBody } from '../../http/openapi';
import { BillingSettingsSchema } from '../../schemas/customers';
import { getBillingSettings, updateBillingSettings } from '../../services/customers/update';
import { BillingSettingsPatchSchema, customerParams as params } from './requests';

const tags = ['Customers'];

export const customerBillingSettingsRoutes = createRouter();

customerBillingSettingsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/settings/billing',
    access: 'customer:read',
    tags,
    summary: "Get a customer's billing settings",
    request: { params },
    responses: { 200: jsonResponse(BillingSettingsSchema, 'Billing settings; null inherits the tenant setting') },
  }),
  async (c) => c.json(await getBillingSettings(serviceContext(c), c.req.valid('param').id), 200),
);

customerBillingSettingsRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/customers/{id}/settings/billing',
    access: 'customer:write',
    tags,
    summary: "Change a customer's billing settings",
    request: { params, body: mergePatchBody(BillingSettingsPatchSchema) },
    responses: { 200: jsonResponse(BillingSettingsSchema, 'Billing settings') },
  }),
  async (c) => c.json(await updateBillingSettings(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);
