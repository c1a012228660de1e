import { describe, expect, it } from 'vitest';
import { safeErrorMessage } from '../../src/lib/log';

// What of an error reaches logs and a billing run's lastError (src/lib/log.ts): never a failed
// query's parameters, which may hold a webhook secret or a token.

describe('safeErrorMessage', () => {
  it("keeps the database's reason of a failed query and drops its parameters", () => {
    const cause = new Error('D1_ERROR: UNIQUE constraint failed: webhooks.id');
    const failed = Object.assign(new Error('Failed query: insert into "webhooks" ("id", "secret") values (?, ?)\nparams: wh1,whsec_c2VjcmV0LXNpZ25pbmcta2V5'), { cause });
    failed.name = 'DrizzleQueryError';
    expect(safeErrorMessage(failed)).toBe('Database error: D1_ERROR: UNIQUE constraint failed: webhooks.id');
    expect(safeErrorMessage(failed)).not.toContain('whsec_');
  });

  it('names other errors by their message', () => {
    expect(safeErrorMessage(new RangeError('No ECB rate for USD/EUR on 2025-03-01'))).toBe('RangeError: No ECB rate for USD/EUR on 2025-03-01');
    expect(safeErrorMessage(new Error('worker died'))).toBe('worker died');
    expect(safeErrorMessage('plain')).toBe('plain');
  });
});
