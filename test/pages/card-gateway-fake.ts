import { createServer, type IncomingMessage, type Server } from 'node:http';
import { StripeFake } from '../support/stripe-fake';

// The card gateway for the browser tests, on one local port: Stripe's API as test/support/stripe-fake.ts
// models it (the Worker reaches it through STRIPE_API_BASE), and at /v3/ a stand-in for Stripe.js
// (the page loads it through CARD_CLIENT_URL). The stand-in does what the page uses of Stripe.js:
// `Stripe(publishableKey).elements().create('card').mount(el)` and `createPaymentMethod({type:
// 'card', card})`. Its field takes a card number and answers Stripe's test payment method of the
// test card with that number (docs.stripe.com/testing): 4242 4242 4242 4242 → pm_card_visa,
// 4000 0000 0000 0002 → pm_card_chargeDeclined; any other number is "incorrect", as Stripe.js says.

export const FAKE_CARD_CLIENT = `
window.Stripe = function (publishableKey) {
  if (!/^pk_(test|live)_/.test(publishableKey)) throw new Error('Invalid publishable key');
  return {
    elements: function () {
      return {
        create: function (type) {
          var input = null;
          return {
            mount: function (target) {
              var box = typeof target === 'string' ? document.querySelector(target) : target;
              input = document.createElement('input');
              input.id = 'card-number';
              input.setAttribute('aria-label', 'Card number');
              input.setAttribute('autocomplete', 'cc-number');
              input.setAttribute('inputmode', 'numeric');
              box.appendChild(input);
            },
            value: function () { return input ? input.value.replace(/\\s+/g, '') : ''; }
          };
        }
      };
    },
    createPaymentMethod: function (options) {
      var cards = { '4242424242424242': 'pm_card_visa', '4000000000000002': 'pm_card_chargeDeclined' };
      var id = cards[options.card.value()];
      // Answered a moment later, as the real client does after its round trip to the gateway.
      return new Promise(function (done) {
        setTimeout(function () { done(id ? { paymentMethod: { id: id, type: 'card' } } : { error: { type: 'validation_error', message: 'Your card number is incorrect.' } }); }, 20);
      });
    }
  };
};
`;

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the fake on a free loopback port; `url` is its origin. */
export async function startCardGatewayFake(): Promise<{ url: string; stop(): Promise<void> }> {
  const stripe = new StripeFake();
  const server: Server = createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && req.url?.startsWith('/v3')) {
        res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(FAKE_CARD_CLIENT);
        return;
      }
      const payload = req.method === 'GET' || req.method === 'HEAD' ? undefined : await body(req);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const answer = await stripe.fetch(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: payload }));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(err));
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((done) => server.close(() => done())) };
}
