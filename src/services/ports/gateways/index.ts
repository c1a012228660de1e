import type { Db } from '../../../db/client';
import type { Env } from '../../../env';
import { loadGatewayCredentials } from '../../payments/gateway-credentials';
import type { GatewayDirectory, PaymentGateway } from './port';
import { STRIPE_GATEWAY, stripeGateway } from './stripe';
import { stripeEndpoint } from './stripe-client';
import { testingGateway } from './testing';

/**
 * The gateways of a tenant, chosen once per service context. Gateways without credentials
 * (`testing`, `fake_provider`) are always there; `card_provider` (Stripe) only once the tenant
 * stored its key (PUT /settings/gateways/card_provider). `sepa_debit` and `bank_transfer` are no
 * gateways: SEPA debits leave in pain.008 files and transfers are matched on the bank statement.
 */
export function gatewayDirectory(env: Env, db: Db, tenantId: string): GatewayDirectory {
  const cache = new Map<string, Promise<PaymentGateway | null>>();
  const load = async (name: string): Promise<PaymentGateway | null> => {
    if (name === 'testing' || name === 'fake_provider') return testingGateway(name);
    if (name === STRIPE_GATEWAY) {
      const credentials = await loadGatewayCredentials(env, db, tenantId, name);
      if (!credentials) return null;
      return stripeGateway({ secretKey: credentials.secretKey, webhookSecret: credentials.webhookSecret, endpoint: stripeEndpoint(env) });
    }
    return null;
  };
  return {
    get(name) {
      let gateway = cache.get(name);
      if (!gateway) {
        gateway = load(name);
        // A failed load (the database, a key that no longer opens) is not kept: the next call tries again.
        gateway.catch(() => cache.delete(name));
        cache.set(name, gateway);
      }
      return gateway;
    },
  };
}

/** Gateways the collection job charges through; every other method waits for a SEPA file or a bank transfer. */
export const CHARGED_GATEWAYS = new Set(['testing', 'fake_provider', 'card_provider']);
