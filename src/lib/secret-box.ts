/**
 * Secrets at rest (gateway keys, webhook signing secrets): AES-256-GCM under the environment's
 * PAYMENT_SECRETS_KEY (32 random bytes, base64). A sealed value is base64(iv ‖ ciphertext ‖ tag)
 * with a fresh 12-byte IV each time. `context` (e.g. tenant, gateway and field) is authenticated
 * but not stored, so a ciphertext copied to another row or field no longer opens.
 */

const IV_BYTES = 12;
const KEY_BYTES = 32;
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** A sealed value that does not open: tampered, truncated, another key, or another context. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface SecretBox {
  seal(plaintext: string, context?: string): Promise<string>;
  open(sealed: string, context?: string): Promise<string>;
}

function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * The raw key from its configured form. Throws a message naming the setting (never its value)
 * when it is missing, not base64 or not 32 bytes: a misconfigured deployment fails on first use,
 * before anything is written with a wrong key.
 */
export function secretKeyBytes(configured: string | undefined): Uint8Array {
  const text = configured?.trim();
  if (!text) throw new Error('PAYMENT_SECRETS_KEY is not set: it must be 32 random bytes, base64 (e.g. `openssl rand -base64 32`).');
  const bytes = fromBase64(text);
  if (!bytes) throw new Error('PAYMENT_SECRETS_KEY is not valid base64: it must be 32 random bytes, base64 (e.g. `openssl rand -base64 32`).');
  if (bytes.length !== KEY_BYTES) throw new Error(`PAYMENT_SECRETS_KEY must decode to ${KEY_BYTES} bytes (AES-256); it decodes to ${bytes.length}.`);
  return bytes;
}

/** A box under `configuredKey` (env.PAYMENT_SECRETS_KEY); checks the key at once. */
export function secretBox(configuredKey: string | undefined): SecretBox {
  const raw = secretKeyBytes(configuredKey);
  const id = configuredKey!.trim();
  let key = keys.get(id);
  if (!key) {
    key = crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    keys.set(id, key);
  }
  const cryptoKey = key;
  return {
    async seal(plaintext, context = '') {
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(context) }, await cryptoKey, encoder.encode(plaintext)));
      const out = new Uint8Array(IV_BYTES + cipher.length);
      out.set(iv);
      out.set(cipher, IV_BYTES);
      return toBase64(out);
    },
    async open(sealed, context = '') {
      const bytes = fromBase64(sealed);
      // 16 bytes of GCM tag at least after the IV.
      if (!bytes || bytes.length < IV_BYTES + 16) throw new SecretBoxError('Not a sealed secret.');
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(context) },
          await cryptoKey,
          bytes.subarray(IV_BYTES),
        );
        return new TextDecoder().decode(plain);
      } catch {
        throw new SecretBoxError('The sealed secret does not open with this key and context (tampered, or sealed under another key).');
      }
    },
  };
}
