import { createServer, type IncomingMessage, type Server } from 'node:http';
import { StripeFake } from '../support/stripe-fake';

// The card gateway for the browser tests, on one local port: Stripe's API as test/support/stripe-fake.ts
// models it (the Worker reaches it through STRIPE_API_BASE), and at /v3/ a stand-in for Stripe.js
// (the page loads it through CARD_CLIENT_URL). The stand-in does what the page uses of Stripe.js:
// `Stripe(publishableKey).elements().create('card').mount(el)` and `createPaymentMethod({type:
// 'card', card})`. Its field takes a card number and answers Stripe's test payment method of the
// test card with that number (docs.stripe.com/testing): 4242 4242 4242 4242 → pm_card_visa,
// 4000 0000 0000 0002 → pm_card_chargeDeclined, 4000 0027 6000 3184 → pm_card_authenticationRequired
// (3-D Secure); any other number is "incorrect", as Stripe.js says. `confirmCardPayment(clientSecret)`
// shows Stripe's 3-D Secure test page as a dialog (complete or fail) and confirms the PaymentIntent.

export const FAKE_CARD_CLIENT = `
(function () {
var origin = new URL(document.currentScript.src).origin;
window.Stripe = function (publishableKey) {
  if (!/^pk_(test|live)_/.test(publishableKey)) throw new Error('Invalid publishable key');
  // Stripe's 3-D Secure test page, as a dialog over the page: the payer completes or fails the
  // challenge, and the result confirms the PaymentIntent at the fake API with the client secret.
  function challenge(clientSecret) {
    return new Promise(function (done) {
      var dialog = document.createElement('div');
      dialog.setAttribute('role', 'dialog');
      dialog.setAttribute('aria-label', '3D Secure 2 Test Page');
      dialog.id = 'fake-3ds';
      [['Complete authentication', 'succeeded'], ['Fail authentication', 'failed']].forEach(function (b) {
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = b[0];
        button.addEventListener('click', function () { dialog.remove(); done(b[1]); });
        dialog.appendChild(button);
      });
      document.body.appendChild(dialog);
    }).then(function (result) {
      var id = clientSecret.split('_secret_')[0];
      return fetch(origin + '/v1/payment_intents/' + id + '/confirm', {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + publishableKey, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'client_secret=' + encodeURIComponent(clientSecret) + '&three_d_secure_result=' + result
      }).then(function (r) { return r.json(); }).then(function (pi) {
        if (pi.error) return { error: pi.error };
        return pi.status === 'succeeded' ? { paymentIntent: pi } : { error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'We are unable to authenticate your payment method.' }, paymentIntent: pi };
      });
    });
  }
  return {
    confirmCardPayment: function (clientSecret) { return challenge(clientSecret); },
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
      var cards = { '4242424242424242': 'pm_card_visa', '4000000000000002': 'pm_card_chargeDeclined', '4000002760003184': 'pm_card_authenticationRequired' };
      var id = cards[options.card.value()];
      // Answered a moment later, as the real client does after its round trip to the gateway.
      return new Promise(function (done) {
        setTimeout(function () { done(id ? { paymentMethod: { id: id, type: 'card' } } : { error: { type: 'validation_error', message: 'Your card number is incorrect.' } }); }, 20);
      });
    }
  };
};
})();
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
      // The stand-in for Stripe.js calls the API from the checkout page's origin, as Stripe.js does.
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, POST', 'Access-Control-Allow-Headers': 'Authorization, Content-Type', 'Access-Control-Max-Age': '600' });
        res.end();
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
