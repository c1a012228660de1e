import type { Env } from '../../env';

// The HTTP mail provider behind the mail port: Brevo's transactional email API
// (docs/decisions.md, Mail: why Brevo). One call per mail: POST {base}/v3/smtp/email with the
// `api-key` header and a JSON body of sender, to, subject, textContent, attachment ({name,
// content: base64}) and headers (the mail's id as its Idempotency-Key). 201 answers {messageId}.

/** Brevo's API origin; MAIL_API_BASE overrides it, the MAIL_API service binding replaces the network (tests). */
export const BREVO_API_BASE = 'https://api.brevo.com';

export interface ProviderMail {
  /** The mail's id: the provider's idempotency key. */
  id: string;
  from: { email: string; name: string };
  to: string;
  subject: string;
  text: string;
  attachments: { fileName: string; mimeType: string; bytes: Uint8Array }[];
}

/** The provider refused the mail for good (a 4xx other than 429): sending it again would fail the same. */
export class MailRejectedError extends Error {
  override name = 'MailRejectedError';
}

/** The provider could not take the mail now (5xx, 429, no answer): try again, after `retryAfterSeconds` if it said. */
export class MailUnavailableError extends Error {
  override name = 'MailUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface MailProvider {
  send(mail: ProviderMail): Promise<{ messageId: string }>;
}

/** Reads a provider's error body for its reason: a short message, never the request (which holds the key). */
async function reason(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    const parts = [typeof body.code === 'string' ? body.code : null, typeof body.message === 'string' ? body.message : null].filter(Boolean);
    if (parts.length) return `${res.status} ${parts.join(': ')}`.slice(0, 300);
  } catch {
    // Not JSON: the status says enough.
  }
  return `${res.status} ${res.statusText}`.trim();
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export class BrevoProvider implements MailProvider {
  constructor(
    private readonly apiKey: string,
    private readonly base: string,
    private readonly transport: (request: Request) => Promise<Response>,
  ) {}

  async send(mail: ProviderMail): Promise<{ messageId: string }> {
    const body = {
      sender: mail.from,
      to: [{ email: mail.to }],
      subject: mail.subject,
      textContent: mail.text,
      ...(mail.attachments.length ? { attachment: mail.attachments.map((a) => ({ name: a.fileName, content: base64(a.bytes) })) } : {}),
      headers: { 'Idempotency-Key': mail.id },
    };
    const request = new Request(`${this.base}/v3/smtp/email`, {
      method: 'POST',
      headers: { 'api-key': this.apiKey, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    let res: Response;
    try {
      res = await this.transport(request);
    } catch (err) {
      throw new MailUnavailableError(`The mail provider did not answer (${err instanceof Error ? err.name : 'error'}).`);
    }
    if (res.ok) {
      const answer = (await res.json().catch(() => ({}))) as { messageId?: unknown };
      return { messageId: typeof answer.messageId === 'string' ? answer.messageId : '' };
    }
    if (res.status === 429) {
      // Brevo tells the seconds until its window resets (developers.brevo.com, rate limit headers).
      const reset = Number(res.headers.get('x-sib-ratelimit-reset') ?? res.headers.get('retry-after'));
      throw new MailUnavailableError(await reason(res), Number.isFinite(reset) && reset > 0 ? Math.ceil(reset) : undefined);
    }
    if (res.status >= 500) throw new MailUnavailableError(await reason(res));
    throw new MailRejectedError(await reason(res));
  }
}

/** The provider Env.MAIL_PROVIDER names (only `brevo` sends); undefined until its API key is set. */
export function mailProvider(env: Env): MailProvider | undefined {
  if (!env.BREVO_API_KEY) return undefined;
  const binding = env.MAIL_API;
  const transport = binding ? (request: Request) => binding.fetch(request) : (request: Request) => fetch(request);
  return new BrevoProvider(env.BREVO_API_KEY, (env.MAIL_API_BASE || BREVO_API_BASE).replace(/\/+$/, ''), transport);
}
