import { z } from '@hono/zod-openapi';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { customFields } from '../../db/schema';
import { isUniqueViolation } from '../../db/client';
import { commitGuarded } from '../../db/commit';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { fetchPage } from '../../db/paging';
import { paginationQuery } from '../../http/pagination';
import { CUSTOM_FIELD_RESOURCES, type CustomFieldDefinition } from '../../schemas/customers';
import { newId } from '../../lib/ids';

export type CustomFieldRow = typeof customFields.$inferSelect;
export type CustomFieldResource = CustomFieldRow['resource'];
type FieldType = CustomFieldRow['type'];

export interface CustomFieldInput {
  name: string;
  type: FieldType;
  resource: CustomFieldResource;
  options: string[] | null;
  required: boolean;
}

export function renderCustomField(row: CustomFieldRow): CustomFieldDefinition {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    resource: row.resource,
    options: row.options ?? null,
    required: row.required,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function checkOptions(input: Pick<CustomFieldInput, 'type' | 'options'>, v: Violations) {
  if (input.type === 'select' && (!input.options || input.options.length === 0)) {
    v.add('options', 'A select field needs at least one option.', 'options_required');
  }
  if (input.type !== 'select' && input.options && input.options.length > 0) {
    v.add('options', 'Only select fields have options.', 'options_not_allowed');
  }
  if (input.options && new Set(input.options).size !== input.options.length) {
    v.add('options', 'Options must be unique.', 'options_not_unique');
  }
}

export function selectCustomFieldDefinitions(db: Db, tenantId: string, resource: CustomFieldResource) {
  return db
    .select()
    .from(customFields)
    .where(and(eq(customFields.tenantId, tenantId), eq(customFields.resource, resource)));
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * Checks `customFields` of a resource against its configured fields: unknown names, wrong types and
 * missing required fields each give a violation on `customFields.<name>`.
 */
export function checkCustomFieldValues(defs: CustomFieldRow[], values: Record<string, unknown> | null, v: Violations): void {
  const byName = new Map(defs.map((d) => [d.name, d]));
  for (const [name, value] of Object.entries(values ?? {})) {
    const def = byName.get(name);
    const path = `customFields.${name}`;
    if (!def) {
      v.add(path, `No custom field "${name}" is configured for this resource.`, 'unknown_custom_field');
      continue;
    }
    if (value === null) {
      if (def.required) v.add(path, 'This custom field is required.', 'custom_field_required');
      continue;
    }
    const ok =
      (def.type === 'string' && typeof value === 'string' && value.length <= 1000) ||
      (def.type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
      (def.type === 'boolean' && typeof value === 'boolean') ||
      (def.type === 'date' && typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))) ||
      (def.type === 'select' && typeof value === 'string' && (def.options ?? []).includes(value));
    if (!ok) {
      const expected =
        def.type === 'select' ? `one of: ${(def.options ?? []).join(', ')}` : def.type === 'date' ? 'a date (YYYY-MM-DD)' : `a ${def.type}`;
      v.add(path, `Must be ${expected}.`, 'invalid_custom_field_value');
    }
  }
  for (const def of defs) {
    if (def.required && (values?.[def.name] === undefined)) {
      v.add(`customFields.${def.name}`, 'This custom field is required.', 'custom_field_required');
    }
  }
}

/** GET /custom-fields: a page, optionally of one resource's fields. */
export const customFieldListQuery = z.object({ ...paginationQuery, resource: z.enum(CUSTOM_FIELD_RESOURCES).optional() });

export async function listCustomFields(ctx: ServiceContext, query: z.output<typeof customFieldListQuery>) {
  const where = and(eq(customFields.tenantId, ctx.tenant.id), query.resource ? eq(customFields.resource, query.resource) : undefined);
  return fetchPage(ctx.db, customFields, where, [asc(customFields.createdAt), asc(customFields.id)], query, renderCustomField);
}

async function findCustomField(ctx: ServiceContext, id: string): Promise<CustomFieldRow> {
  const row = await ctx.db
    .select()
    .from(customFields)
    .where(and(eq(customFields.tenantId, ctx.tenant.id), eq(customFields.id, id)))
    .get();
  if (!row) throw ApiError.notFound('Custom field');
  return row;
}

export async function getCustomField(ctx: ServiceContext, id: string) {
  return renderCustomField(await findCustomField(ctx, id));
}

function nameTaken(): ApiError {
  return ApiError.violation('name', 'A custom field with this name already exists for this resource.', 'not_unique');
}

export async function createCustomField(ctx: ServiceContext, input: CustomFieldInput) {
  const v = new Violations();
  checkOptions(input, v);
  v.throwIfAny();
  const now = ctx.now.toISOString();
  const row: CustomFieldRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    ...input,
    options: input.type === 'select' ? input.options : null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.insert(customFields).values(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
  return renderCustomField(row);
}

/** Name, options and `required` may change; type and resource are fixed once values may exist. */
export async function updateCustomField(ctx: ServiceContext, id: string, input: CustomFieldInput) {
  const current = await findCustomField(ctx, id);
  const v = new Violations();
  if (input.type !== current.type) v.add('type', 'The type of a custom field cannot change.', 'immutable');
  if (input.resource !== current.resource) v.add('resource', 'The resource of a custom field cannot change.', 'immutable');
  checkOptions(input, v);
  v.throwIfAny();
  const { resource } = await commitGuarded(ctx, {
    table: customFields,
    current,
    changes: { name: input.name, options: input.type === 'select' ? input.options : null, required: input.required },
    render: renderCustomField,
    conflict: 'The custom field was changed concurrently; reload and retry.',
    mapError: (err) => (isUniqueViolation(err) ? nameTaken() : null),
  });
  return resource;
}

export async function deleteCustomField(ctx: ServiceContext, id: string) {
  const deleted = await ctx.db
    .delete(customFields)
    .where(and(eq(customFields.tenantId, ctx.tenant.id), eq(customFields.id, id)))
    .returning({ id: customFields.id })
    .get();
  if (!deleted) throw ApiError.notFound('Custom field');
}
