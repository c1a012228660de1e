// A local, in-memory Brevo: the part of its transactional email API the mail adapter uses
// (src/services/ports/mail-provider.ts), answering as developers.brevo.com documents it, since the
// tests have no network. Plain web APIs only, so it runs in Node and, from vitest.workers.config.ts,
// as the MAIL_API service binding that workerd tests reach.
//
// What it models:
// - POST /v3/smtp/email with the `api-key` header; a key no account was made for is 401
//   {code: "unauthorized", message}. Every account has its own state, so tests never meet.
// - The body: `sender` {email, name?} and `subject` are required (no templates here), `to` a
//   non-empty list of {email, name?}, `htmlContent` or `textContent`; `attachment` items need a
//   `name` and base64 `content` (or a `url`), with an extension from Brevo's list. Otherwise 400
//   {code: "missing_parameter" | "invalid_parameter", message}. Success is 201 {messageId}.
// - Idempotency: `headers["Idempotency-Key"]`, the same key again answers the first messageId and
//   sends nothing more.
// - Faults, per account: answer `status` before anything happens (429 carries x-sib-ratelimit-*
//   headers, the reset 7 s or `reset`). A lost connection is the test's own transport that throws.
// - Control endpoints under /__fake/: POST /__fake/accounts → {apiKey}; with `api-key`: GET
//   /__fake/mails (accepted mails, attachments decoded to their size and first bytes), GET
//   /__fake/calls, POST /__fake/faults {status, reset?, times?}.

export interface FakeMail {
  messageId: string;
  idempotencyKey: string | null;
  sender: { email: string; name?: string };
  to: { email: string; name?: string }[];
  subject: string;
  textContent?: string;
  htmlContent?: string;
  attachments: { name: string; size: number; head: string }[];
}

export interface FakeMailCall {
  path: string;
  status: number;
  replayed: boolean;
  idempotencyKey: string | null;
}

interface Account {
  mails: FakeMail[];
  calls: FakeMailCall[];
  byKey: Map<string, string>;
  faults: { status: number; reset?: number; times: number }[];
}

const EXTENSIONS = new Set(
  'xlsx xls ods docx docm doc csv pdf txt gif jpg jpeg png tif tiff rtf bmp cgm css shtml html htm zip xml ppt pptx tar ez ics mobi msg pub eps odt mp3 m4a m4v wma ogg flac wav aif aifc aiff mp4 mov avi mkv mpeg mpg wmv pkpass xlsm'.split(' '),
);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const bad = (code: 'missing_parameter' | 'invalid_parameter', message: string) => json(400, { code, message });

function decodeBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/** The body's problem, in Brevo's words, or the mail it accepts. */
function check(body: Record<string, any>): Response | Omit<FakeMail, 'messageId' | 'idempotencyKey'> {
  const sender = body.sender;
  if (!sender || typeof sender !== 'object') return bad('missing_parameter', 'sender is missing');
  if (typeof sender.email !== 'string' || !EMAIL.test(sender.email)) return bad('invalid_parameter', 'sender email is not valid');
  if (!Array.isArray(body.to) || body.to.length === 0) return bad('missing_parameter', 'to is missing');
  for (const r of body.to) if (typeof r?.email !== 'string' || !EMAIL.test(r.email)) return bad('invalid_parameter', 'email is not valid in to');
  if (typeof body.subject !== 'string' || !body.subject) return bad('missing_parameter', 'subject is missing');
  if (typeof body.htmlContent !== 'string' && typeof body.textContent !== 'string') return bad('missing_parameter', 'htmlContent or textContent is missing');
  const attachments: FakeMail['attachments'] = [];
  if (body.attachment !== undefined) {
    if (!Array.isArray(body.attachment)) return bad('invalid_parameter', 'attachment must be an array');
    for (const a of body.attachment) {
      if (typeof a?.url === 'string') continue;
      if (typeof a?.content !== 'string') return bad('missing_parameter', 'attachment content or url is missing');
      if (typeof a.name !== 'string' || !a.name) return bad('missing_parameter', 'attachment name is missing');
      if (!EXTENSIONS.has(a.name.split('.').pop()!.toLowerCase())) return bad('invalid_parameter', `attachment extension of ${a.name} is not allowed`);
      const bytes = decodeBase64(a.content);
      if (!bytes) return bad('invalid_parameter', 'attachment content is not valid base64');
      attachments.push({ name: a.name, size: bytes.length, head: new TextDecoder().decode(bytes.subarray(0, 8)) });
    }
  }
  return { sender, to: body.to, subject: body.subject, textContent: body.textContent, htmlContent: body.htmlContent, attachments };
}

export class BrevoFake {
  private readonly accounts = new Map<string, Account>();
  private counter = 0;

  readonly fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/__fake/accounts') {
      const apiKey = `xkeysib-fake-${crypto.randomUUID()}`;
      this.accounts.set(apiKey, { mails: [], calls: [], byKey: new Map(), faults: [] });
      return json(201, { apiKey });
    }
    const account = this.accounts.get(request.headers.get('api-key') ?? '');
    if (!account) return json(401, { code: 'unauthorized', message: 'Key not found' });
    if (url.pathname === '/__fake/mails') return json(200, account.mails);
    if (url.pathname === '/__fake/calls') return json(200, account.calls);
    if (request.method === 'POST' && url.pathname === '/__fake/faults') {
      const f = (await request.json()) as { status: number; reset?: number; times?: number };
      account.faults.push({ status: f.status, reset: f.reset, times: f.times ?? 1 });
      return json(201, {});
    }
    if (request.method !== 'POST' || url.pathname !== '/v3/smtp/email') return json(404, { code: 'not_found', message: 'Not found' });

    const record = (status: number, idempotencyKey: string | null, replayed = false) => account.calls.push({ path: url.pathname, status, replayed, idempotencyKey });
    const fault = account.faults.find((f) => f.times > 0);
    if (fault) {
      fault.times--;
      record(fault.status, null);
      if (fault.status === 429) return json(429, { code: 'too_many_requests', message: 'Too many requests' }, { 'x-sib-ratelimit-limit': '1000', 'x-sib-ratelimit-remaining': '0', 'x-sib-ratelimit-reset': String(fault.reset ?? 7) });
      return json(fault.status, { code: fault.status >= 500 ? 'internal_error' : 'invalid_parameter', message: 'Injected fault' });
    }
    if (!(request.headers.get('content-type') ?? '').includes('application/json')) return json(415, { code: 'invalid_parameter', message: 'Content-Type must be application/json' });
    let body: Record<string, any>;
    try {
      body = (await request.json()) as Record<string, any>;
    } catch {
      record(400, null);
      return bad('invalid_parameter', 'Input must be a valid JSON object');
    }
    const idempotencyKey = typeof body.headers?.['Idempotency-Key'] === 'string' ? body.headers['Idempotency-Key'] : null;
    const seen = idempotencyKey ? account.byKey.get(idempotencyKey) : undefined;
    if (seen) {
      record(201, idempotencyKey, true);
      return json(201, { messageId: seen });
    }
    const checked = check(body);
    if (checked instanceof Response) {
      record(checked.status, idempotencyKey);
      return checked;
    }
    const messageId = `<${Date.now()}.${++this.counter}@smtp-relay.mailin.fr>`;
    account.mails.push({ messageId, idempotencyKey, ...checked });
    if (idempotencyKey) account.byKey.set(idempotencyKey, messageId);
    record(201, idempotencyKey);
    return json(201, { messageId });
  };
}
