import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { cancellationReasons } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { cancellationReasonService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';

export const CancellationReasonSchema = z
  .object({ id: z.string(), code: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CancellationReason');

export const cancellationReasonRoutes = createRouter();
registerResourceRoutes(cancellationReasonRoutes, {
  path: '/cancellation-reasons',
  name: 'CancellationReason',
  tag: 'Cancellation reasons',
  permission: 'cancellation-reason',
  service: cancellationReasonService,
  schema: CancellationReasonSchema,
  writeSchema: z.strictObject({ code: requiredText(1, 255), name: requiredText(1, 255) }).openapi('CancellationReasonWrite'),
  filters: { code: { schema: z.string().max(255), where: (v: string) => eq(cancellationReasons.code, v) } },
  sortable: { code: cancellationReasons.code, name: cancellationReasons.name },
});
