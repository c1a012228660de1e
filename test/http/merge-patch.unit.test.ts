import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../src/http/merge-patch';

// The examples of RFC 7396, Appendix A.
describe('applyMergePatch (RFC 7396 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('does not modify its inputs', () => {
    const target = { a: { b: 1 } };
    applyMergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('applyMergePatch depth', () => {
  it('refuses a patch nested deeper than the body limit with a 400, never a stack overflow', () => {
    let patch: Record<string, unknown> = { a: 1 };
    for (let i = 0; i < 10_000; i++) patch = { a: patch };
    expect(() => applyMergePatch({}, patch)).toThrow(expect.objectContaining({ status: 400 }));
    let ok: Record<string, unknown> = { a: 1 };
    for (let i = 0; i < 60; i++) ok = { a: ok };
    expect(applyMergePatch({}, ok)).toEqual(ok);
  });
});
