const encoder = new TextEncoder();

/** Two hex digits of each byte value. */
export const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Bytes as lowercase hex (every request hashes its API key: no array spreading and mapping). */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTES[bytes[i]!];
  return out;
}

/** SHA-256 of text (as UTF-8) or of bytes, in hex. */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', typeof input === 'string' ? encoder.encode(input) : input);
  return toHex(new Uint8Array(digest));
}

/** Compares two strings without leaking the position of the first difference through timing. */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.length !== bb.length) return false;
  let diff = 0;
  for (let i = 0; i < ab.length; i++) diff |= ab[i]! ^ bb[i]!;
  return diff === 0;
}

/** HMAC-SHA256 of `message` (UTF-8) under `key`. */
export async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, encoder.encode(message)));
}

/** Hex HMAC-SHA256 of `message` under `key`. */
export async function hmacSha256Hex(key: Uint8Array, message: string): Promise<string> {
  return toHex(await hmacSha256(key, message));
}

const sealingKeys = new Map<string, Promise<CryptoKey>>();

/** An AES-256-GCM key derived (HKDF-SHA256) from a server secret for one purpose. */
function sealingKey(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\n${secret}`;
  let key = sealingKeys.get(id);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(purpose) },
          base,
          { name: 'AES-GCM', length: 256 },
          false,
          ['encrypt', 'decrypt'],
        ),
      );
    sealingKeys.set(id, key);
  }
  return key;
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/**
 * Encrypts text for storage (`v1.<iv>.<ciphertext>`, base64). `context` is authenticated but not
 * stored: the text only opens again with the same context (e.g. the row it was written for).
 */
export async function seal(secret: string, purpose: string, plaintext: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const cipher = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(context) }, await sealingKey(secret, purpose), encoder.encode(plaintext));
  return `v1.${chunkedBase64(iv)}.${chunkedBase64(new Uint8Array(cipher))}`;
}

/** Opens what `seal` made with the same secret, purpose and context; throws when anything differs. */
export async function openSealed(secret: string, purpose: string, sealed: string, context: string): Promise<string> {
  const [version, iv, cipher] = sealed.split('.');
  if (version !== 'v1' || !iv || cipher === undefined) throw new Error('Not a sealed value.');
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv), additionalData: encoder.encode(context) }, await sealingKey(secret, purpose), fromBase64(cipher));
  return new TextDecoder().decode(plain);
}

/** Base64 of any length (String.fromCharCode(...bytes) would exceed the argument limit for a 1 MiB reply). */
function chunkedBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
