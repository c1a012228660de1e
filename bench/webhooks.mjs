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
    const quick = await slowReceiver(0);
    try {
      const plain = await tenant(ctx, 'Bench plain');
      const hooked = async (name, port) => {
        const headers = await tenant(ctx, name);
        const w = await http(ctx.url, 'POST', '/webhooks', {
          headers,
          body: { url: `http://localhost:${port}/hook`, events: ['customer.created'] },
          signal: ctx.signal,
        });
        if (w.status !== 201) throw new Error(`POST /webhooks: ${w.status} ${w.text?.slice(0, 200)}`);
        return headers;
      };
      const fast = await hooked('Bench fast receiver', quick.port);
      const slow = await hooked('Bench slow receiver', receiver.port);
      const body = (tag, headers) => (seq) => ({
        method: 'POST',
        path: '/customers',
        headers,
        body: { email: `wh-${tag}-${ctx.runTag}-${seq}@bench.test`, countryCode: 'DE', firstName: 'Hook', lastName: `Bench${seq}` },
      });
      const results = [];
      results.push(await ctx.measure('POST /customers (no webhook)', body('plain', plain)));
      results.push(await ctx.measure('POST /customers (webhook, receiver answers at once)', body('fast', fast)));
      results.push(await ctx.measure('POST /customers (webhook, receiver sleeps 10 s)', body('slow', slow)));
      const stats = { slow: receiver.stats(), fast: quick.stats() };
      log(`receivers: slow ${stats.slow.received} received / ${stats.slow.answered} answered, fast ${stats.fast.received} received`);
      return { setup: { receivers: stats }, results };
    } finally {
      await receiver.close();
      await quick.close();
    }
  },
};
