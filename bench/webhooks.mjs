// Section `webhooks`: delivery never slows the API. A local receiver answers every webhook only
// after 10 s; POST /customers is measured for a tenant whose every customer.created goes to it, and
// for a tenant without webhooks, in the same run.
import { createServer } from 'node:http';
import { http } from './lib.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

function slowReceiver(delayMs) {
  let received = 0;
  let answered = 0;
  const server = createServer((req, res) => {
    received++;
    req.resume();
    const timer = setTimeout(() => {
      answered++;
      res.writeHead(200).end('ok');
    }, delayMs);
    req.on('close', () => clearTimeout(timer));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        stats: () => ({ received, answered }),
        close: () => new Promise((r) => server.close(() => r()) && server.closeAllConnections?.()),
      }),
    );
  });
}

async function tenant(ctx, name) {
  const r = await http(ctx.url, 'POST', '/admin/tenants', {
    headers: { Authorization: `Bearer ${ctx.config.adminToken}` },
    body: { name, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test' },
    signal: ctx.signal,
  });
  if (r.status !== 201) throw new Error(`POST /admin/tenants: ${r.status} ${r.text?.slice(0, 200)}`);
  return { Authorization: `Bearer ${r.json.apiKey.key}` };
}

export const webhookSection = {
  name: 'webhooks',
  title: 'Webhook delivery vs. API latency (receiver answers after 10 s)',
  baseline: 'POST /customers (no webhook)',
  async run(ctx) {
    const receiver = await slowReceiver(10_000);
    try {
      const plain = await tenant(ctx, 'Bench plain');
      const hooked = await tenant(ctx, 'Bench hooked');
      const w = await http(ctx.url, 'POST', '/webhooks', {
        headers: hooked,
        body: { url: `http://localhost:${receiver.port}/hook`, events: ['customer.created'] },
        signal: ctx.signal,
      });
      if (w.status !== 201) throw new Error(`POST /webhooks: ${w.status} ${w.text?.slice(0, 200)}`);
      const body = (tag) => (seq) => ({
        method: 'POST',
        path: '/customers',
        headers: tag === 'plain' ? plain : hooked,
        body: { email: `wh-${tag}-${ctx.runTag}-${seq}@bench.test`, countryCode: 'DE', firstName: 'Hook', lastName: `Bench${seq}` },
      });
      const results = [];
      results.push(await ctx.measure('POST /customers (no webhook)', body('plain')));
      results.push(await ctx.measure('POST /customers (webhook, receiver sleeps 10 s)', body('hooked')));
      const stats = receiver.stats();
      log(`receiver: ${stats.received} deliveries received, ${stats.answered} answered so far`);
      return { setup: { receiver: stats }, results };
    } finally {
      await receiver.close();
    }
  },
};
