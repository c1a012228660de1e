import type { z } from '@hono/zod-openapi';
import type { BillingRunSchema } from '../schemas/billing';
import type { DunningIssueRequest, DunningIssueResult, FinalizeRequest, FinalizeResult, OfferIssueRequest, OfferIssueResult } from '../services/ports/numbering';

export interface RunBillingOptions {
  trigger: string;
  /** Work the run to its end before answering (the test clock); otherwise alarms work it. */
  sync: boolean;
  /** ISO instant billed up to; default the tenant's now. */
  asOf?: string;
}

/** A billing run as the API shows it: the response schema's type, so the RPC answer cannot drift from it. */
export type BillingRunView = z.infer<typeof BillingRunSchema>;

/**
 * What the worker may call on a tenant's TenantObject. `Env` names the object by this interface,
 * so the binding's type does not pull the object's implementation (and all services) into every
 * module that reads the environment.
 */
export interface TenantObjectApi extends Rpc.DurableObjectBranded {
  finalizeDocument(req: FinalizeRequest): Promise<FinalizeResult>;
  runBilling(tenantId: string, options: RunBillingOptions): Promise<BillingRunView>;
  issueDunningDocument(req: DunningIssueRequest): Promise<DunningIssueResult>;
  issueOffer(req: OfferIssueRequest): Promise<OfferIssueResult>;
  /** Runs dunning for the tenant at `asOf` (default its now), one run at a time; `invoiceId` limits it to one invoice. */
  runDunning(tenantId: string, options: { asOf?: string; invoiceId?: string }): Promise<DunningRunSummary>;
}

export interface DunningRunSummary {
  /** Documents issued by this run. */
  issued: number;
  /** Invoices looked at. */
  examined: number;
}
