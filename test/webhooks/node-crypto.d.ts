// The one part of node:crypto the webhook tests use (workerd provides it with nodejs_compat; the
// project has no Node type definitions): an HMAC computed independently of the WebCrypto signer.
declare module 'node:crypto' {
  interface Hmac {
    update(data: string): Hmac;
    digest(encoding: 'hex'): string;
  }
  export function createHmac(algorithm: 'sha256', key: string): Hmac;
}
