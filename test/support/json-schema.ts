// A small JSON Schema (2020-12, as OpenAPI 3.1 uses it) validator for the tests: enough of the
// vocabulary our document uses to check it the way a generated client or validator would read it
// (types, enums, objects, arrays, lengths, patterns, bounds, allOf/anyOf/oneOf, local $refs).
// Formats are annotations only, as in the 2020-12 default.

type Schema = boolean | Record<string, any>;

export interface SchemaError {
  path: string;
  message: string;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** Validates `value` against `schema`, resolving `#/…` references in `root` (the OpenAPI document). */
export function validateJsonSchema(root: unknown, schema: Schema, value: unknown, path = ''): SchemaError[] {
  if (schema === true) return [];
  if (schema === false) return [{ path, message: 'no value is allowed here' }];
  const errors: SchemaError[] = [];
  const fail = (message: string) => errors.push({ path, message });

  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    if (target === undefined) return [{ path, message: `unresolvable $ref ${schema.$ref}` }];
    errors.push(...validateJsonSchema(root, target, value, path));
  }
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(value, t))) fail(`expected ${types.join(' or ')}, got ${typeOf(value)}`);
  }
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) fail(`not one of ${JSON.stringify(schema.enum)}`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) fail(`not ${JSON.stringify(schema.const)}`);

  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) fail(`shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) fail(`longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) fail(`does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`above ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) fail(`not above ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) fail(`not below ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail(`fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`more than ${schema.maxItems} items`);
    if (schema.items !== undefined) value.forEach((item, i) => errors.push(...validateJsonSchema(root, schema.items, item, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) errors.push({ path: `${path}.${key}`, message: 'required' });
    const properties: Record<string, Schema> = schema.properties ?? {};
    for (const [key, v] of Object.entries(object)) {
      if (key in properties) errors.push(...validateJsonSchema(root, properties[key]!, v, `${path}.${key}`));
      else if (schema.additionalProperties !== undefined) errors.push(...validateJsonSchema(root, schema.additionalProperties, v, `${path}.${key}`));
    }
  }

  for (const sub of schema.allOf ?? []) errors.push(...validateJsonSchema(root, sub, value, path));
  if (schema.anyOf && !schema.anyOf.some((sub: Schema) => validateJsonSchema(root, sub, value, path).length === 0)) fail('matches none of anyOf');
  if (schema.oneOf && schema.oneOf.filter((sub: Schema) => validateJsonSchema(root, sub, value, path).length === 0).length !== 1) fail('does not match exactly one of oneOf');
  return errors;
}
