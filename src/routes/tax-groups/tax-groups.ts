import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { calendarDate, countryCode, idParam, optionalText } from '../../http/schemas';
import { previewTax, taxGroupService } from '../../services/catalogue/taxes';
import { registerResourceRoutes } from '../resource-routes';
import { REVERSE_CHARGE_TYPES, TaxGroupSchema, TaxResolutionSchema } from '../../schemas/catalogue';

export const taxGroupRoutes = createRouter();

registerResourceRoutes(taxGroupRoutes, {
  paths: { collection: '/tax-groups', item: '/tax-groups/{id}' },
  name: 'TaxGroup',
  tag: 'Taxes',
  permission: 'tax-group',
  service: taxGroupService,
  schema: TaxGroupSchema,
  writeSchema: z
    .strictObject({
      internalDescription: optionalText(1, 255),
      reverseChargeType: z.enum(REVERSE_CHARGE_TYPES).default('REVERSE_CHARGE'),
      type: z.enum(['standard', 'reduced']),
    })
    .openapi('TaxGroupWrite'),
  descriptions: {
    create: 'A tax group resolves to a rate per destination country and date from the EU VAT table (standard or reduced), unless the tenant adds its own rate under /taxes.',
  },
});

taxGroupRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/tax-groups/{id}/rate',
    access: 'tax-group:read',
    tags: ['Taxes'],
    summary: 'Resolve the rate a tax group charges a customer',
    description: 'The same resolution billing uses: EN16931 category (S, AE, K, G, E, Z), rate and legal note.',
    request: {
      params: z.object({ id: idParam('id', 'Tax group id') }),
      query: z.object({
        customerCountry: countryCode,
        date: calendarDate,
        isBusiness: z.enum(['true', 'false']).default('false'),
        vatIdValid: z.enum(['true', 'false']).default('false'),
        taxExempt: z.enum(['auto', 'exempt']).default('auto'),
      }),
    },
    responses: { 200: jsonResponse(TaxResolutionSchema, 'The resolution') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const result = await previewTax(serviceContext(c), c.req.valid('param').id, {
      customerCountry: q.customerCountry,
      date: q.date,
      isBusiness: q.isBusiness === 'true',
      vatIdValid: q.vatIdValid === 'true',
      taxExempt: q.taxExempt,
    });
    return c.json(result, 200);
  },
);
