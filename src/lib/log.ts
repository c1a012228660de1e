/**
 * What of an error may be written to logs and shown in a run's `lastError`. A failed Drizzle query
 * carries its SQL parameters in its message ("Failed query: …\nparams: …"), which may be a webhook
 * secret, an IBAN or a token: only the database's own reason (its cause) is kept.
 */
export function safeErrorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (/^Failed query:/.test(err.message)) {
    const cause = (err as { cause?: unknown }).cause;
    return `Database error: ${cause instanceof Error ? cause.message : 'the query failed'}`;
  }
  return `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`;
}

/** One structured log line of an error, without secrets (see `safeErrorMessage`). */
export function logError(fields: Record<string, unknown>, err: unknown): void {
  const stack = err instanceof Error && !/^Failed query:/.test(err.message) ? err.stack : undefined;
  console.error(JSON.stringify({ level: 'error', ...fields, message: safeErrorMessage(err), ...(stack ? { stack } : {}) }));
}
