// Types of bootstrap.mjs.
export interface DemoState {
  tenantId: string;
  apiKey: string;
  seeded: boolean;
  startedAt?: string;
  refs?: { invoice: string; sepaFile: string; checkout: string };
  links?: { checkout: string; invoicePdf: string; eInvoice: string; sepaFile: string };
  webhookSecret?: string;
}
export declare function ensureDemo(options: {
  baseUrl: string;
  adminToken: string;
  stateFile: string;
  webhookUrl: string;
  progress?: boolean;
  onlyIntoEmpty?: boolean;
  log?: (line: string) => void;
}): Promise<{ state: DemoState; action: 'created' | 'resumed' | 'existing' | 'foreign' }>;
