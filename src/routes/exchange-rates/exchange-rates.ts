import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { calendarDate } from '../../http/schemas';
import { systemNow } from '../../lib/clock';
import { ApiError } from '../../http/errors';
import { importRates, ratesOn } from '../../services/billing/exchange-rates';
import { StaticRateSource } from '../../services/ports/rate-source';
import { ExchangeRateImportResultSchema, ExchangeRatesSchema } from '../../schemas/billing';

export const exchangeRateRoutes = createRouter();

exchangeRateRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/exchange-rates',
    access: 'invoice:read',
    tags: ['Exchange rates'],
    summary: 'ECB euro reference rates in force on a date',
    description: 'For each currency the rate of the latest ECB publication at or before the date (1 EUR = rate units). Billing converts with the rate of the invoice date.',
    request: { query: z.object({ date: calendarDate }) },
    responses: { 200: jsonResponse(ExchangeRatesSchema, 'Rates') },
  }),
  async (c) => {
    const date = c.req.valid('query').date;
    // ECB reference rates are always against the euro.
    return c.json({ date, data: (await ratesOn(c.var.db, date)).map((r) => ({ ...r, base: 'EUR' as const })) }, 200);
  },
);

exchangeRateRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/admin/exchange-rates',
    access: 'admin',
    tags: ['Platform administration'],
    summary: 'Import an ECB eurofxref feed (daily or history)',
    description: 'The daily cron imports the ECB feed itself; this loads a given feed (back-filling history, or offline setups).',
    request: { body: jsonBody(z.strictObject({ xml: z.string().min(1).max(900_000) }).openapi('ExchangeRateImport')) },
    responses: { 200: jsonResponse(ExchangeRateImportResultSchema, 'How many rates were stored') },
  }),
  async (c) => {
    try {
      return c.json({ imported: await importRates(c.env, new StaticRateSource(c.req.valid('json').xml), systemNow()) }, 200);
    } catch (err) {
      if (err instanceof RangeError) {
        throw ApiError.violation('xml', err.message, 'invalid_feed');
      }
      throw err;
    }
  },
);
