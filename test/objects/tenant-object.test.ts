import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { unique } from '../support/api';

// The TenantObject (src/objects/tenant-object.ts): document number ranges.

describe('TenantObject number ranges', () => {
  it('hands out consecutive numbers per range, never the same twice', async () => {
    const stub = env.TENANT.getByName(`tenant-${unique()}`);
    const numbers = await Promise.all(Array.from({ length: 50 }, () => stub.allocateNumber('invoice')));
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await stub.allocateNumber('credit')).toBe(1);
    await runInDurableObject(stub, async (instance) => {
      expect(instance.currentNumber('invoice')).toBe(50);
    });
  });
});
