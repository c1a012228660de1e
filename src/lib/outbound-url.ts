// The policy for every URL the service sends a request to on a tenant's behalf (webhooks today):
// no request may reach loopback, private, link-local (cloud metadata) or otherwise non-public
// addresses. The host is judged as the WHATWG URL parser canonicalises it, which already turns
// the numeric tricks (0x7f000001, 2130706433, 017700000001, 127.1, %31…) into dotted IPv4, and
// IPv6 into its compressed hex form. Names are not resolved (docs/decisions.md, Events and
// webhooks: a name that resolves to a private address is not caught here).

export type HostClass = 'public' | 'loopback' | 'non-public';

export interface HostVerdict {
  kind: HostClass;
  /** Why the host is not public, for a message: "a loopback address". */
  reason?: string;
}

/** IPv4 blocks that are not globally reachable (IANA special-purpose registry), with why. */
const IPV4_BLOCKS: [string, number, string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local (cloud metadata) address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved (IETF protocol) address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

/** Name suffixes that only resolve inside a private network (RFC 6761, 6762, 8375, ICANN's `.internal`). */
const PRIVATE_SUFFIXES = ['local', 'localdomain', 'internal', 'intranet', 'lan', 'home', 'corp', 'home.arpa', 'arpa'];

function ipv4ToInt(host: string): number | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function classifyIpv4(n: number): HostVerdict {
  for (const [base, bits, reason] of IPV4_BLOCKS) {
    const size = 2 ** (32 - bits);
    const start = ipv4ToInt(base)!;
    if (n >= start && n < start + size) return { kind: base === '127.0.0.0' ? 'loopback' : 'non-public', reason };
  }
  return { kind: 'public' };
}

/** `2001:db8::1` → its eight 16-bit groups; a dotted IPv4 tail is accepted too. Null when malformed. */
function ipv6Groups(host: string): number[] | null {
  let text = host;
  const dotted = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = ipv4ToInt(dotted[1]!);
    if (n === null) return null;
    text = `${text.slice(0, -dotted[1]!.length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const known = head.length + rest.length;
  if ([...head, ...rest].some(Number.isNaN)) return null;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  return [...head, ...Array<number>(8 - known).fill(0), ...rest];
}

function classifyIpv6(groups: number[]): HostVerdict {
  const [a, b] = groups as [number, number];
  if (groups.every((g, i) => g === (i === 7 ? 1 : 0))) return { kind: 'loopback', reason: 'a loopback address' };
  // Only global unicast (2000::/3) is public, less its special blocks; everything else (unspecified,
  // IPv4-mapped or -translated, unique local fc00::/7, link-local, multicast) is refused outright.
  if ((a & 0xe000) !== 0x2000) {
    if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return { kind: 'non-public', reason: 'an IPv4-mapped address' };
    if ((a & 0xfe00) === 0xfc00) return { kind: 'non-public', reason: 'a unique local (private) address' };
    if ((a & 0xffc0) === 0xfe80) return { kind: 'non-public', reason: 'a link-local address' };
    return { kind: 'non-public', reason: 'not a global unicast address' };
  }
  if (a === 0x2001 && b < 0x0200) return { kind: 'non-public', reason: 'a reserved (IETF protocol or Teredo) address' };
  if (a === 0x2001 && b === 0x0db8) return { kind: 'non-public', reason: 'a documentation address' };
  if (a === 0x3fff && b < 0x1000) return { kind: 'non-public', reason: 'a documentation address' };
  if (a === 0x2002) return { kind: 'non-public', reason: 'a 6to4 address (it embeds an IPv4 address)' };
  return { kind: 'public' };
}

/** Whether a URL's hostname (as `new URL(...).hostname` gives it) is public. */
export function classifyHost(hostname: string): HostVerdict {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    const groups = ipv6Groups(hostname.slice(1, -1));
    return groups ? classifyIpv6(groups) : { kind: 'non-public', reason: 'a malformed IPv6 address' };
  }
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  const v4 = ipv4ToInt(name);
  if (v4 !== null) return classifyIpv4(v4);
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'loopback', reason: 'a loopback name' };
  if (!name.includes('.')) return { kind: 'non-public', reason: 'a single-label name (it resolves only inside a private network)' };
  if (PRIVATE_SUFFIXES.some((s) => name.endsWith(`.${s}`))) return { kind: 'non-public', reason: 'a private-network name' };
  return { kind: 'public' };
}

export interface UrlRefusal {
  code: 'invalid_url' | 'https_required' | 'private_address';
  message: string;
}

/**
 * Why the service must not send to a tenant's URL; empty when it may. Live tenants: https to a
 * public host. Test tenants may also use loopback (`http://localhost`, `127.0.0.1`, `[::1]`) for
 * local development; every other non-public host is refused for them too.
 */
export function outboundUrlRefusals(raw: string, mode: 'live' | 'test'): UrlRefusal[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [{ code: 'invalid_url', message: 'Must be an absolute URL.' }];
  }
  const out: UrlRefusal[] = [];
  if (url.username || url.password) out.push({ code: 'invalid_url', message: 'Credentials in the URL are not allowed; use the signature to authenticate.' });
  const host = classifyHost(url.hostname);
  const loopbackAllowed = mode === 'test' && host.kind === 'loopback';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackAllowed)) {
    out.push({ code: 'https_required', message: mode === 'live' ? 'Live tenants deliver over https only.' : 'Use https, or http://localhost for local testing.' });
  }
  if (host.kind !== 'public' && !loopbackAllowed) {
    out.push({ code: 'private_address', message: `${url.hostname} is ${host.reason}; only public hosts are allowed${mode === 'test' ? ' (test tenants may also use localhost)' : ''}.` });
  }
  return out;
}
