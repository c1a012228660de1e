import { ApiError } from './errors';
import { MAX_JSON_DEPTH } from './json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * RFC 7396 JSON Merge Patch: objects merge recursively, null deletes, anything else replaces.
 * Bodies are capped at MAX_JSON_DEPTH by the body guard; the cap is checked here as well so the
 * recursion can never exhaust the stack, whoever calls it.
 */
export function applyMergePatch<T>(target: T, patch: unknown, depth = 1): T {
  if (!isObject(patch)) return patch as T;
  if (depth > MAX_JSON_DEPTH) throw ApiError.badRequest(`The merge patch nests objects deeper than ${MAX_JSON_DEPTH} levels.`);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key] as Json, value, depth + 1);
  }
  return result as T;
}
