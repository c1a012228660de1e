import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { validateJsonSchema } from '../support/json-schema';

// The examples of /openapi.json are answers recorded from the demo tenant (npm run docs:examples):
// each must still fit its operation's response schema, so a changed shape fails here until they
// are recorded again, and none may show a secret.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function examples() {
  const doc = (await api('/openapi.json')).body;
  const found: { op: string; schema: Record<string, any>; value: unknown }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const method of METHODS) {
      for (const [status, response] of Object.entries((item[method]?.responses ?? {}) as Record<string, any>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, any>)) {
          if (media.examples?.demo) found.push({ op: `${method.toUpperCase()} ${path} ${status}`, schema: media.schema, value: media.examples.demo.value });
        }
      }
    }
  }
  return { doc, found };
}

describe('examples in the OpenAPI document', () => {
  it('are shown on 90 operations or more, and each fits its response schema', async () => {
    const { doc, found } = await examples();
    expect(found.length).toBeGreaterThanOrEqual(90);
    const misfits = found.flatMap(({ op, schema, value }) => validateJsonSchema(doc, schema, value).slice(0, 3).map((e) => `${op}: ${JSON.stringify(e)}`));
    expect(misfits, 'stale examples: run npm run docs:examples').toEqual([]);
  });

  it('show no keys, secrets, tokens or link signatures', async () => {
    const text = JSON.stringify((await examples()).found.map((e) => e.value));
    expect(text).not.toMatch(/sk_(test|live)_[A-Za-z0-9_-]{8}/);
    expect(text).not.toMatch(/whsec_[A-Za-z0-9+/]{8}/);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10}/);
    expect(text).not.toMatch(/signature=[0-9a-f]{8}/);
  });
});
