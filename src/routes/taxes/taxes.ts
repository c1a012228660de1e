import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { exactNumbers } from '../../http/exact-numbers';
import { calendarDate, countryCode, decimalOrNumber, optionalText, requiredText } from '../../http/schemas';
import { TaxSchema } from '../../schemas/catalogue';
import { taxService } from '../../services/catalogue/taxes';
import { registerResourceRoutes } from '../resource-routes';

// Spec §2.3 shows the rate as a number: one is taken as written (exactNumbers), as is a decimal string.
const rate = decimalOrNumber(4, {}, '19').refine((v) => Number(v) <= 100, { message: 'Must be between 0 and 100.', params: { code: 'out_of_range' } });

export const taxRoutes = createRouter();

taxRoutes.use('/taxes', exactNumbers('rate'));
taxRoutes.use('/taxes/:id', exactNumbers('rate'));

registerResourceRoutes(taxRoutes, {
  paths: { collection: '/taxes', item: '/taxes/{id}' },
  name: 'Tax',
  tag: 'Taxes',
  permission: 'tax',
  service: taxService,
  schema: TaxSchema,
  writeSchema: z
    .strictObject({
      taxGroup: z.string().min(1).max(64),
      countryCode,
      validFrom: calendarDate,
      rate,
      code: requiredText(1, 64),
      description: optionalText(1, 255),
    })
    .openapi('TaxWrite'),
  descriptions: { create: 'A tenant rate for a tax group in a country from `validFrom` on; it overrides the EU table from that date.' },
});
