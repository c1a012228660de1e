import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse, mergePatchBody } from '../../http/openapi';
import { loadSettings, settingsList, SETTING_DEFINITIONS, updateSettings } from '../../services/platform/settings';
import { SettingsSchema } from '../../schemas/platform';

// The known keys come from the service's definitions, so the document lists them all.
const DocumentedSettingsSchema = SettingsSchema.openapi('Settings', {
  description: `Known keys: ${Object.entries(SETTING_DEFINITIONS)
    .map(([k, d]) => `\`${k}\` (default ${JSON.stringify(d.default)}): ${d.description}`)
    .join('; ')}`,
});

const SettingsPatchSchema = z
  .strictObject({ settings: z.array(z.strictObject({ key: z.string(), value: z.unknown() })).min(1).max(50) })
  .openapi('SettingsPatch');

export const settingsRoutes = createRouter();

settingsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/settings',
    access: 'settings:read',
    tags: ['Settings'],
    summary: "The tenant's settings (every known key, with its effective value)",
    responses: { 200: jsonResponse(DocumentedSettingsSchema, 'Settings') },
  }),
  async (c) => c.json(settingsList(await loadSettings(c.var.db, c.var.tenant.id)), 200),
);

settingsRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/settings',
    access: 'settings:write',
    tags: ['Settings'],
    summary: 'Change settings',
    request: { body: mergePatchBody(SettingsPatchSchema) },
    responses: { 200: jsonResponse(DocumentedSettingsSchema, 'Settings after the change') },
  }),
  async (c) => c.json(settingsList(await updateSettings(serviceContext(c), c.req.valid('json').settings)), 200),
);
