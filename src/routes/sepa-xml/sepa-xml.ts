import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, problem } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { calendarDate, idParam } from '../../http/schemas';
import { SEPA_FILE_TYPES, SEPA_FORMATS, SepaDownloadLinkSchema, SepaFileCreatedSchema, SepaFileDetailSchema, SepaFileSchema } from '../../schemas/sepa';
import { createSepaFile, getSepaFile, listSepaFiles, sepaDownloadLink, sepaFileListQuery } from '../../services/payments/sepa-files';

// SEPA files for the tenant's bank: pain.008 direct debits and pain.001 credit transfers.

const tags = ['SEPA XML'];
const params = z.object({ id: idParam('id', 'SEPA file id') });

const SepaFileWriteSchema = z
  .strictObject({
    type: z.enum(SEPA_FILE_TYPES).default('direct_debit').openapi({ description: 'direct_debit (pain.008, default) or credit_transfer (pain.001).' }),
    collectionDate: calendarDate.optional().openapi({
      description: 'Collection (debits) or execution (transfers) date, YYYY-MM-DD: a TARGET business day, at the earliest the next one after today (the default).',
    }),
    format: z.enum(SEPA_FORMATS).optional().openapi({
      description: 'Debits: pain.008.001.02 or pain.008.001.08 (default: the setting sepa.format); transfers: pain.001.001.03 (default) or pain.001.001.09.',
    }),
  })
  .openapi('SepaFileWrite');

export const sepaXmlRoutes = createRouter();

sepaXmlRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/sepa-xml',
    access: 'sepa-xml:write',
    tags,
    summary: 'Write the SEPA file of everything due: direct debits (pain.008) or refunds and credit notes to pay out (pain.001)',
    description:
      'Direct debits: every open EUR invoice whose payment method (its own, else the customer’s default) is an active SEPA mandate and that is in no live file, for its open amount; FRST for a mandate’s first file, RCUR after. Each becomes a `processing` transaction whose referenceId is the end-to-end id; the invoice stays open until the bank statement shows the money. Credit transfers: pending refunds of SEPA and bank-transfer payments, and credit notes that owe the customer money. 409 `nothing-to-collect` when nothing is due. Items whose data the file cannot carry are left out and listed in `skipped`.',
    request: { body: jsonBody(SepaFileWriteSchema) },
    responses: { 201: jsonResponse(SepaFileCreatedSchema, 'The file') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    return c.json(await createSepaFile(serviceContext(c), { type: body.type, collectionDate: body.collectionDate ?? null, format: body.format ?? null }), 201);
  },
);

sepaXmlRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/sepa-xml',
    access: 'sepa-xml:read',
    tags,
    summary: 'The SEPA files, newest first',
    request: { query: sepaFileListQuery },
    responses: { 200: jsonResponse(collectionSchema(SepaFileSchema, 'SepaFileCollection'), 'The files') },
  }),
  async (c) => c.json(await listSepaFiles(serviceContext(c), c.req.valid('query')), 200),
);

sepaXmlRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/sepa-xml/{id}',
    access: 'sepa-xml:read',
    tags,
    summary: 'A SEPA file with its transactions',
    request: { params },
    responses: { 200: jsonResponse(SepaFileDetailSchema, 'The file') },
  }),
  async (c) => c.json(await getSepaFile(serviceContext(c), c.req.valid('param').id), 200),
);

sepaXmlRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/sepa-xml/{id}/download-link',
    access: 'sepa-xml:read',
    tags,
    summary: "A signed, expiring link to the file's XML",
    request: { params, query: z.object({ secondsValid: z.string().regex(/^\d{1,6}$/).transform(Number).pipe(z.number().int().min(10).max(604_800)).optional() }) },
    responses: { 200: jsonResponse(SepaDownloadLinkSchema, 'The link'), 404: problem('Unknown file') },
  }),
  async (c) => c.json(await sepaDownloadLink(serviceContext(c), c.req.valid('param').id, new URL(c.req.url).origin, c.req.valid('query').secondsValid ?? 3600), 200),
);
