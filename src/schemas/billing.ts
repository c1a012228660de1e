import { z } from '@hono/zod-openapi';

// Representations of billing runs and exchange rates.

export const BillingRunSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    asOf: z.string(),
    trigger: z.string(),
    itemsBilled: z.number().int(),
    invoicesCreated: z.number().int(),
    errors: z.number().int(),
    lastError: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('BillingRun');

export const ExchangeRatesSchema = z
  .object({ date: z.string(), data: z.array(z.object({ currency: z.string(), rate: z.string(), date: z.string(), base: z.literal('EUR') })) })
  .openapi('ExchangeRates');
export type ExchangeRates = z.infer<typeof ExchangeRatesSchema>;

export const ExchangeRateImportResultSchema = z.object({ imported: z.number().int() }).openapi('ExchangeRateImportResult');
