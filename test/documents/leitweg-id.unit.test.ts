import { describe, expect, it } from 'vitest';
import { leitwegIdProblem } from '../../src/documents/leitweg-id';

// Leitweg-IDs from KoSIT's specification and XRechnung test suite are valid; a changed digit, a
// missing check or a bad character is not.
describe('Leitweg-ID', () => {
  it.each(['04011000-12345-03', '991-33333TEST-33', '04011000-1234512345-06', '992-90009-96', '991-33333test-33'])('accepts %s', (id) => {
    expect(leitwegIdProblem(id)).toBeNull();
  });
  it.each([
    ['04011000-12345-04', 'check digits'],
    ['04011000-12345', 'Leitweg-ID'],
    ['4-12345-03', 'Leitweg-ID'],
    ['04011000-123_45-03', 'Leitweg-ID'],
    ['04011000-12345-3', 'Leitweg-ID'],
  ])('refuses %s', (id, why) => {
    expect(leitwegIdProblem(id)).toContain(why);
  });
});
