import type { Context } from 'hono';
import type { ZodError } from 'zod';

export interface Violation {
  propertyPath: string;
  message: string;
  code: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The one error type of the API; rendered as RFC 9457 problem+json by `renderProblem`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    detail: string,
    readonly violations?: Violation[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  static badRequest(detail: string, violations?: Violation[]) {
    return new ApiError(400, 'bad-request', detail, violations);
  }
  static unauthorized(detail = 'Missing or invalid credentials.') {
    return new ApiError(401, 'unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
  static forbidden(detail: string) {
    return new ApiError(403, 'forbidden', detail);
  }
  static notFound(what = 'Resource') {
    return new ApiError(404, 'not-found', `${what} not found.`);
  }
  static conflict(detail: string, type = 'conflict') {
    return new ApiError(409, type, detail);
  }
  static validation(violations: Violation[], detail?: string) {
    return new ApiError(422, 'validation-failed', detail ?? violations.map((v) => `${v.propertyPath}: ${v.message}`).join('; '), violations);
  }
  static violation(propertyPath: string, message: string, code: string) {
    return ApiError.validation([{ propertyPath, message, code }]);
  }
}

/** Collects violations so a handler can report every broken rule at once. */
export class Violations {
  readonly list: Violation[] = [];
  add(propertyPath: string, message: string, code: string): this {
    this.list.push({ propertyPath, message, code });
    return this;
  }
  get empty() {
    return this.list.length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw ApiError.validation(this.list);
  }
}

/** `['tiers', 1, 'upTo']` → `tiers[1].upTo`: array indexes in brackets, as every other violation path. */
export function propertyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

export function zodViolations(error: ZodError, prefix?: string): Violation[] {
  const out: Violation[] = [];
  for (const issue of error.issues) {
    const base = propertyPath([...(prefix ? [prefix] : []), ...issue.path]);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ propertyPath: base ? `${base}.${key}` : key, message: 'This field is not allowed.', code: 'unknown_field' });
      }
      continue;
    }
    const custom = issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined;
    out.push({ propertyPath: base, message: issue.message, code: custom ?? issue.code });
  }
  return out;
}

export function renderProblem(c: Context, err: ApiError): Response {
  const status = err.status;
  const body = {
    type: `/problems/${err.type}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: err.message,
    requestId: c.get('requestId') as string | undefined,
    ...(err.violations ? { violations: err.violations } : {}),
  };
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json', ...err.headers };
  return new Response(JSON.stringify(body), { status, headers });
}
