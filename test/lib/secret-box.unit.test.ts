import { describe, expect, it } from 'vitest';
import { secretBox, secretKeyBytes, SecretBoxError } from '../../src/lib/secret-box';

// The development key of wrangler.toml and a second one: 32 bytes each, base64.
const KEY = 'ZGV2LW9ubHktcGF5bWVudC1zZWNyZXRzLWtleS0zMmI=';
const OTHER_KEY = btoa('another-32-byte-key-for-the-test');

describe('secret box (AES-256-GCM under PAYMENT_SECRETS_KEY)', () => {
  it('opens what it sealed, and the sealed text is not the secret', async () => {
    const box = secretBox(KEY);
    const sealed = await box.seal('sk_test_51Habc', 'tenant-1\ncard_provider\nsecretKey');
    expect(sealed).not.toContain('sk_test');
    expect(atob(sealed).length).toBe(12 + 'sk_test_51Habc'.length + 16);
    expect(await box.open(sealed, 'tenant-1\ncard_provider\nsecretKey')).toBe('sk_test_51Habc');
  });

  it('uses a fresh IV each time: the same secret seals differently', async () => {
    const box = secretBox(KEY);
    const a = await box.seal('whsec_same');
    const b = await box.seal('whsec_same');
    expect(a).not.toBe(b);
    expect(atob(a).slice(0, 12)).not.toBe(atob(b).slice(0, 12));
    expect(await box.open(a)).toBe(await box.open(b));
  });

  it('refuses a tampered ciphertext, another context and another key', async () => {
    const box = secretBox(KEY);
    const sealed = await box.seal('sk_live_secret', 'ctx');
    const bytes = Uint8Array.from(atob(sealed), (c) => c.charCodeAt(0));
    bytes[bytes.length - 20]! ^= 1;
    const tampered = btoa(String.fromCharCode(...bytes));
    await expect(box.open(tampered, 'ctx')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(box.open(sealed, 'other ctx')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(secretBox(OTHER_KEY).open(sealed, 'ctx')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(box.open('not base64!', 'ctx')).rejects.toBeInstanceOf(SecretBoxError);
    await expect(box.open(btoa('short'), 'ctx')).rejects.toBeInstanceOf(SecretBoxError);
  });

  it('refuses a missing, malformed or wrong-length key with a message naming the setting, not the value', () => {
    expect(() => secretKeyBytes(undefined)).toThrow(/PAYMENT_SECRETS_KEY is not set/);
    expect(() => secretKeyBytes('***')).toThrow(/not valid base64/);
    const short = btoa('sixteen-byte-key');
    expect(() => secretBox(short)).toThrow(/must decode to 32 bytes.*16/);
    try {
      secretBox(short);
    } catch (err) {
      expect(String(err)).not.toContain(short);
    }
  });
});
