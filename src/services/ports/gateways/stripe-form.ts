/**
 * Stripe's request bodies: application/x-www-form-urlencoded with nested keys written in
 * brackets (`metadata[invoice]=…`, `expand[0]=…`), as its API reference and official clients
 * send them. `null` is sent as an empty value (Stripe's way to unset a field); `undefined` is left out.
 */
export type FormValue = string | number | boolean | null | undefined | readonly FormValue[] | { readonly [key: string]: FormValue };

function append(out: URLSearchParams, key: string, value: FormValue): void {
  if (value === undefined) return;
  if (value === null) out.append(key, '');
  else if (Array.isArray(value)) value.forEach((item, i) => append(out, `${key}[${i}]`, item));
  else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) append(out, `${key}[${k}]`, v);
  else out.append(key, String(value));
}

export function encodeForm(params: Readonly<Record<string, FormValue>>): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) append(out, key, value);
  return out.toString();
}
