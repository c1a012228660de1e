import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { taxes, taxGroups } from '../../db/schema';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { countryCode, decimalString, idParam, optionalText, requiredText } from '../../http/schemas';
import { previewTax, taxGroupService, taxService } from '../../services/catalogue/taxes';
import { registerResourceRoutes } from '../resource-routes';

const reverseChargeTypes = ['REVERSE_CHARGE_DEACTIVATED', 'REVERSE_CHARGE', 'REVERSE_CHARGE_INTRA_EU_SUPPLY'] as const;
const date = z.iso.date({ message: 'Must be a date (YYYY-MM-DD).' });

export const TaxGroupSchema = z
  .object({
    id: z.string(),
    internalDescription: z.string().nullable(),
    reverseChargeType: z.enum(reverseChargeTypes),
    type: z.enum(['standard', 'reduced']),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('TaxGroup');

export const TaxSchema = z
  .object({
    id: z.string(),
    taxGroup: z.string(),
    countryCode: z.string(),
    validFrom: z.string(),
    rate: z.string().openapi({ description: 'Percent, 0 to 100, as a decimal string' }),
    code: z.string(),
    description: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Tax');

const rate = decimalString(4).refine((v) => Number(v) <= 100, { message: 'Must be between 0 and 100.', params: { code: 'out_of_range' } });

export const taxRoutes = createRouter();

registerResourceRoutes(taxRoutes, {
  path: '/tax-groups',
  name: 'TaxGroup',
  tag: 'Taxes',
  permission: 'tax-group',
  service: taxGroupService,
  schema: TaxGroupSchema,
  writeSchema: z
    .strictObject({
      internalDescription: optionalText(1, 255),
      reverseChargeType: z.enum(reverseChargeTypes).default('REVERSE_CHARGE'),
      type: z.enum(['standard', 'reduced']),
    })
    .openapi('TaxGroupWrite'),
  filters: { type: { schema: z.enum(['standard', 'reduced']), where: (v: 'standard' | 'reduced') => eq(taxGroups.type, v) } },
  descriptions: {
    create: 'A tax group resolves to a rate per destination country and date from the EU VAT table (standard or reduced), unless the tenant adds its own rate under /taxes.',
  },
});

registerResourceRoutes(taxRoutes, {
  path: '/taxes',
  name: 'Tax',
  tag: 'Taxes',
  permission: 'tax',
  service: taxService,
  schema: TaxSchema,
  writeSchema: z
    .strictObject({
      taxGroup: z.string().min(1).max(64),
      countryCode,
      validFrom: date,
      rate,
      code: requiredText(1, 64),
      description: optionalText(1, 255),
    })
    .openapi('TaxWrite'),
  filters: {
    taxGroup: { schema: z.string().max(64), where: (v: string) => eq(taxes.taxGroupId, v) },
    countryCode: { schema: z.string().max(2), where: (v: string) => eq(taxes.countryCode, v) },
  },
  sortable: { validFrom: taxes.validFrom, countryCode: taxes.countryCode },
  descriptions: { create: 'A tenant rate for a tax group in a country from `validFrom` on; it overrides the EU table from that date.' },
});

const TaxPreviewSchema = z
  .object({
    rate: z.string(),
    category: z.enum(['S', 'AE', 'K', 'G', 'E', 'Z']),
    legalNote: z.string().nullable(),
    country: z.string(),
    taxId: z.string().nullable(),
    sellerCountry: z.string(),
    date: z.string(),
  })
  .openapi('TaxResolution');

taxRoutes.openapi(
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
        date,
        isBusiness: z.enum(['true', 'false']).default('false'),
        vatIdValid: z.enum(['true', 'false']).default('false'),
        taxExempt: z.enum(['auto', 'exempt']).default('auto'),
      }),
    },
    responses: { 200: jsonResponse(TaxPreviewSchema, 'The resolution') },
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
