/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { AppEnv } from '../../http/context';
import { ApiError } from '../../http/errors';
import { listOutbox, outboxAttachment, outboxMail, type OutboxMail } from '../../services/mail/outbox';

// The local mail outbox, for `npm run dev` (docs/decisions.md, Mail): /dev/mail lists the mails the
// `outbox` adapter kept, /dev/mail/{id} shows one with its body and attachments. Server-rendered,
// no script, no external asset. Only when Env.ENVIRONMENT is `development` (wrangler.toml's
// top-level vars); in every other environment these paths are the API's ordinary 404.

export const devPages = new Hono<AppEnv>();

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const CSS = `
*{box-sizing:border-box}
html{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
body{margin:0}
header{padding:.75rem 1.5rem;background:#fff;border-bottom:1px solid #c9ccd1;display:flex;gap:1rem;align-items:baseline}
header h1{font-size:1.1rem;margin:0}
header p{margin:0;color:#4d4d4d;font-size:.875rem}
main{max-width:70rem;margin:0 auto;padding:1.25rem 1rem 3rem}
.card{background:#fff;border:1px solid #c9ccd1;border-radius:.5rem;padding:1rem 1.25rem;margin:0 0 1rem}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #e1e3e6;vertical-align:top}
th{font-size:.8rem;color:#4d4d4d;font-weight:600}
td.when{white-space:nowrap;font-variant-numeric:tabular-nums;color:#4d4d4d;font-size:.875rem}
.tenant{display:block;color:#4d4d4d;font-size:.8rem}
a{color:#0b57d0}
.status{display:inline-block;font-size:.75rem;padding:.05rem .45rem;border-radius:1rem;background:#e8eaed}
.status.sent{background:#dff3e4;color:#146c2e}.status.failed{background:#fbe3e1;color:#b3261e}.status.pending,.status.sending{background:#fff3d6;color:#6b4e00}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{color:#4d4d4d}dd{margin:0;word-break:break-all}
pre{white-space:pre-wrap;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f8f9fa;border:1px solid #e1e3e6;border-radius:.375rem;padding:.75rem 1rem;margin:0}
ul{margin:0;padding-left:1.25rem}
.empty{color:#4d4d4d}
`;

function html(element: JSX.Element, status: 200 | 404 = 200): Response {
  return new Response(`<!doctype html>${element.toString()}`, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Robots-Tag': 'noindex, nofollow',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    },
  });
}

function Page(props: { title: string; children: unknown }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <link rel="stylesheet" href="/dev/mail.css" />
      </head>
      <body>
        <header>
          <h1>
            <a href="/dev/mail">Local mail outbox</a>
          </h1>
          <p>Development only: mails the service would send, kept in outgoing_mails.</p>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

const Status = (props: { status: string }) => <span class={`status ${props.status}`}>{props.status}</span>;

function MailList(props: { mails: OutboxMail[]; tenantId?: string }) {
  return (
    <Page title="Local mail outbox">
      <div class="card">
        {props.tenantId ? (
          <p>
            Tenant {props.tenantId} only. <a href="/dev/mail">All tenants</a>
          </p>
        ) : null}
        {props.mails.length === 0 ? (
          <p class="empty">No mail yet. Request a one-time code, send an invoice or an offer, and it shows up here.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Created (UTC)</th>
                <th>To</th>
                <th>Subject</th>
                <th>Attachments</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {props.mails.map((m) => (
                <tr>
                  <td class="when">{m.createdAt.replace('T', ' ').slice(0, 19)}</td>
                  <td>
                    {m.to}
                    <a class="tenant" href={`/dev/mail?tenant=${encodeURIComponent(m.tenantId)}`}>
                      {m.tenantName ?? m.tenantId}
                    </a>
                  </td>
                  <td>
                    <a href={`/dev/mail/${m.id}`}>{m.subject}</a>
                  </td>
                  <td>{m.attachments.map((a) => a.fileName).join(', ')}</td>
                  <td>
                    <Status status={m.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Page>
  );
}

function MailView(props: { mail: OutboxMail }) {
  const m = props.mail;
  return (
    <Page title={`${m.subject} · Local mail outbox`}>
      <div class="card">
        <dl>
          <dt>Subject</dt>
          <dd>{m.subject}</dd>
          <dt>To</dt>
          <dd>{m.to}</dd>
          <dt>Tenant</dt>
          <dd>
            {m.tenantName ?? ''} ({m.tenantId})
          </dd>
          <dt>Created</dt>
          <dd>{m.createdAt}</dd>
          <dt>Status</dt>
          <dd>
            <Status status={m.status} />
            {m.lastError ? ` ${m.lastError}` : ''}
          </dd>
          <dt>Attachments</dt>
          <dd>
            {m.attachments.length === 0 ? (
              'none'
            ) : (
              <ul>
                {m.attachments.map((a, i) => (
                  <li>
                    <a href={`/dev/mail/${m.id}/attachments/${i}`}>{a.fileName}</a> ({a.mimeType})
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      </div>
      <div class="card">
        <pre>{m.body || '(the body is dropped once a provider has the mail)'}</pre>
      </div>
    </Page>
  );
}

devPages.use('/dev/*', async (c, next) => {
  if (c.env.ENVIRONMENT !== 'development') throw new ApiError(404, 'not-found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);
  await next();
});

devPages.get('/dev/mail.css', () => new Response(CSS, { headers: { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } }));

devPages.get('/dev/mail', async (c) => {
  const tenantId = c.req.query('tenant') || undefined;
  return html(<MailList mails={await listOutbox(c.env, { tenantId })} tenantId={tenantId} />);
});

const notFound = () => html(<Page title="Not found">{<div class="card">No such mail.</div>}</Page>, 404);

devPages.get('/dev/mail/:id', async (c) => {
  const id = c.req.param('id');
  const mail = ID.test(id) ? await outboxMail(c.env, id) : undefined;
  return mail ? html(<MailView mail={mail} />) : notFound();
});

devPages.get('/dev/mail/:id/attachments/:n', async (c) => {
  const id = c.req.param('id');
  const n = Number(c.req.param('n'));
  const mail = ID.test(id) && Number.isInteger(n) && n >= 0 ? await outboxMail(c.env, id) : undefined;
  const file = mail && (await outboxAttachment(c.env, mail, n));
  if (!file) return notFound();
  return new Response(file.body, {
    headers: {
      'Content-Type': file.mimeType,
      'Content-Disposition': `inline; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    },
  });
});
