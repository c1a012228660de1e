const encoder = new TextEncoder();

/** A new webhook secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The HMAC key of a secret: the base64-decoded bytes after `whsec_` (as Standard Webhooks defines it). */
function keyBytes(secret: string): Uint8Array {
  const raw = atob(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', keyBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const base64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

/**
 * The signature headers of a delivery, one signature per secret (the current one, and the previous
 * one during its grace period after a rotation):
 * - `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body (comma-separated when there are two);
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
 *   `${id}.${timestamp}.${body}` (space-separated when there are two).
 */
export async function signatureHeaders(secrets: string[], messageId: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const plain = await Promise.all(secrets.map((s) => hmac(s, body)));
  const standard = await Promise.all(secrets.map((s) => hmac(s, `${messageId}.${timestamp}.${body}`)));
  return {
    'X-Webhook-Signature': plain.map(hex).join(','),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.map((s) => `v1,${base64(s)}`).join(' '),
  };
}
