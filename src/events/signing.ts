import { hmacSha256, hmacSha256Hex } from '../lib/crypto';

const encoder = new TextEncoder();

/** A new webhook secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The Standard Webhooks key of a secret: the base64-decoded bytes after `whsec_`. */
function standardKey(secret: string): Uint8Array {
  const raw = atob(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

const base64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

/**
 * The signature headers of a delivery, from one secret string verifiable both ways
 * (docs/decisions.md, Events and webhooks):
 * - `X-Webhook-Signature` (Fynn, the n8n trigger): lowercase hex HMAC-SHA256 of the body, keyed
 *   with the secret string exactly as shown (UTF-8, `whsec_` included), as Fynn's docs compute it
 *   with `hash_hmac('sha256', $body, $secret)`. One value only, the current secret's: Fynn's
 *   verifiers compare the whole header.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
 *   `${id}.${timestamp}.${body}`, keyed with the decoded bytes after `whsec_`; one signature per
 *   secret (`secrets[0]` is the current one, then the previous one during its grace period),
 *   space-separated, as the format allows.
 */
export async function signatureHeaders(secrets: [string, ...string[]], messageId: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const fynn = await hmacSha256Hex(encoder.encode(secrets[0]), body);
  const standard = await Promise.all(secrets.map((s) => hmacSha256(standardKey(s), `${messageId}.${timestamp}.${body}`)));
  return {
    'X-Webhook-Signature': fynn,
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.map((s) => `v1,${base64(s)}`).join(' '),
  };
}
