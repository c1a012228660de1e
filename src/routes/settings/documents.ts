import { serviceContext } from '../../http/context';
import { ApiError, zodViolations } from '../../http/errors';
import { applyMergePatch } from '../../http/merge-patch';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody } from '../../http/openapi';
import { z } from '@hono/zod-openapi';
import { DocumentSettingsSchema } from '../../schemas/documents';
import { deleteLogo, LogoUploadSchema, uploadLogo } from '../../services/documents/logo';
import { DocumentSettingsWriteSchema, loadDocumentSettings, renderDocumentSettings, saveDocumentSettings, writableDocumentSettings } from '../../services/documents/settings';

// The tenant's letterhead, bank account, texts and default e-invoice type, and its logo.

const tags = ['Settings'];
const DocumentSettingsPatchSchema = z.record(z.string(), z.unknown()).openapi('DocumentSettingsPatch', { description: 'RFC 7396 merge patch over DocumentSettingsWrite.' });

export const documentSettingsRoutes = createRouter();

documentSettingsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/settings/documents',
    access: 'settings:read',
    tags,
    summary: 'Document settings: letterhead, bank account, texts, default e-invoice type, logo',
    responses: { 200: jsonResponse(DocumentSettingsSchema, 'The document settings') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    return c.json(await renderDocumentSettings(ctx, await loadDocumentSettings(ctx.db, ctx.tenant.id)), 200);
  },
);

documentSettingsRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/settings/documents',
    access: 'settings:write',
    tags,
    summary: 'Replace the document settings',
    description: 'What is left out is reset to its default. Documents rendered before keep what they show.',
    request: { body: jsonBody(DocumentSettingsWriteSchema) },
    responses: { 200: jsonResponse(DocumentSettingsSchema, 'The document settings') },
  }),
  async (c) => c.json(await saveDocumentSettings(serviceContext(c), c.req.valid('json')), 200),
);

documentSettingsRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/settings/documents',
    access: 'settings:write',
    tags,
    summary: 'Change some document settings (JSON merge patch)',
    request: { body: mergePatchBody(DocumentSettingsPatchSchema) },
    responses: { 200: jsonResponse(DocumentSettingsSchema, 'The document settings') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    // The patch applies to the settings as read (the IBAN in full), and the write is guarded by that read.
    const read = await loadDocumentSettings(ctx.db, ctx.tenant.id);
    const parsed = DocumentSettingsWriteSchema.safeParse(applyMergePatch(writableDocumentSettings(read), c.req.valid('json')));
    if (!parsed.success) throw ApiError.validation(zodViolations(parsed.error));
    return c.json(await saveDocumentSettings(ctx, parsed.data, read), 200);
  },
);

documentSettingsRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/settings/documents/logo',
    access: 'settings:write',
    tags,
    summary: 'Upload the letterhead logo (PNG or JPEG, base64)',
    request: { body: jsonBody(LogoUploadSchema) },
    responses: { 200: jsonResponse(DocumentSettingsSchema, 'The document settings') },
  }),
  async (c) => c.json(await uploadLogo(serviceContext(c), c.req.valid('json')), 200),
);

documentSettingsRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/settings/documents/logo',
    access: 'settings:write',
    tags,
    summary: 'Remove the letterhead logo',
    responses: { 200: jsonResponse(DocumentSettingsSchema, 'The document settings') },
  }),
  async (c) => c.json(await deleteLogo(serviceContext(c)), 200),
);
