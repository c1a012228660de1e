import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { cancellationReasonService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { CancellationReasonSchema } from '../../schemas/catalogue';

export const cancellationReasonRoutes = createRouter();
registerResourceRoutes(cancellationReasonRoutes, {
  paths: { collection: '/cancellation-reasons', item: '/cancellation-reasons/{id}' },
  name: 'CancellationReason',
  tag: 'Cancellation reasons',
  permission: 'cancellation-reason',
  service: cancellationReasonService,
  schema: CancellationReasonSchema,
  writeSchema: z.strictObject({ code: requiredText(1, 255), name: requiredText(1, 255) }).openapi('CancellationReasonWrite'),
});
