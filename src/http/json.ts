// Checks on JSON bodies that the parser does not make: nesting depth and well-formed Unicode.

/** Deepest nesting of objects and arrays a body may have (our deepest schema needs about 5). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `limit`, counted on the text before it is parsed, so no
 * recursive code (merge patch, validation, serialization) ever sees a body deeper than the limit.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > limit) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The path of the first string (value or key) that is not well-formed UTF-16, or undefined. D1
 * would store such a string with replacement characters, unlike what the response showed.
 */
export function illFormedString(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedString(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return [...path, key];
      const found = illFormedString(v, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
