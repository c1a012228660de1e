import { describe, expect, it } from 'vitest';
import { hmacSha256Hex, sha256Hex, toHex } from '../../src/lib/crypto';
import { newId } from '../../src/lib/ids';

// Hex output of hashes (API key lookups, idempotency) and the shape and order of new ids.

describe('hex and hashes', () => {
  it('writes bytes as two lowercase hex digits each', () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 171, 255]))).toBe('00010f10abff');
    expect(toHex(new Uint8Array([]))).toBe('');
  });

  it('hashes with the published SHA-256 and HMAC-SHA256 test vectors', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // RFC 4231, test case 2.
    expect(await hmacSha256Hex(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('newId', () => {
  it('makes UUIDv7 ids that sort in the order they were made', () => {
    const ids = Array.from({ length: 2000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
