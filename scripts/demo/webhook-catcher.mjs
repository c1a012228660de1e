// A local endpoint for the demo tenant's webhook: it verifies each delivery both ways the API signs
// it (Standard Webhooks, and Fynn's X-Webhook-Signature: hex HMAC-SHA256 of the body keyed with the
// secret string; docs/guides/webhooks.md) and appends one line per event to a log file, so
// `npm run dev` shows what the API sends without an outside service.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** Listens on 127.0.0.1:`port`; `secret()` is read per delivery (the demo may be seeded after the start). */
export function startWebhookCatcher({ port, logFile, secret }) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verdict = 'no secret yet';
      let type = '?';
      try {
        type = JSON.parse(body)?.event?.type ?? '?';
      } catch {
        /* not JSON: logged as is */
      }
      const key = secret();
      if (key) {
        try {
          new Webhook(key).verify(body, req.headers);
          verdict = 'standard-webhooks ok';
        } catch (err) {
          verdict = `standard-webhooks refused (${err.message})`;
        }
        const expected = createHmac('sha256', key).update(body).digest('hex');
        const header = String(req.headers['x-webhook-signature'] ?? '');
        const fynnOk = header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
        verdict += fynnOk ? ', x-webhook-signature ok' : ', x-webhook-signature refused';
      }
      appendFileSync(logFile, `${new Date().toISOString()} ${type} ${req.headers['webhook-id'] ?? ''} ${verdict}\n`);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.once('error', (err) => resolve({ ok: false, error: err.message, close: () => {} }));
    server.listen(port, '127.0.0.1', () => resolve({ ok: true, close: () => server.close() }));
  });
}
