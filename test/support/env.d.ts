import type { D1Migration } from '@cloudflare/vitest-plugin';
import type { Env as AppEnv } from '../../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** Node-side judges: official e-invoice validators and poppler (test/support/oracles.node.ts). */
      ORACLES: Fetcher;
    }
    interface GlobalProps {
      mainModule: typeof import('../../src/index');
      durableNamespaces: 'TenantObject';
    }
  }
}
