import { z } from '@hono/zod-openapi';

// Open-banking accounts (spec §2.5): bank accounts linked through a provider, whose booked
// transactions are pulled nightly and matched like an imported statement.

export const OpenBankingAccountSchema = z
  .object({
    id: z.string(),
    alias: z.string().nullable(),
    bankName: z.string().nullable(),
    iban: z.string().openapi({ description: 'Masked', example: 'DE89**************3000' }),
    status: z.enum(['linked', 'pending', 'expired', 'revoked']),
    provider: z.string(),
    createdAt: z.string(),
    validUntil: z.string().nullable().openapi({ description: 'When the consent ends; after it the account must be linked again' }),
    lastAccessedAt: z.string().nullable().openapi({ description: 'Last pull of its transactions' }),
    lastInformedAt: z.string().nullable().openapi({ description: 'Last pull that brought new transactions' }),
  })
  .openapi('OpenBankingAccount');

export type OpenBankingAccountResource = z.infer<typeof OpenBankingAccountSchema>;

export const OpenBankingSyncSchema = z
  .object({
    account: OpenBankingAccountSchema,
    pulled: z.number().int().openapi({ description: 'Transactions the provider returned' }),
    imported: z.number().int().openapi({ description: 'Of them new (not seen before)' }),
  })
  .openapi('OpenBankingSync');
