import { isIPv4, isIPv6 } from 'node:net';

/**
 * Pure SSRF rules for webhook targets: which hosts and addresses a delivery may reach.
 * Used at registration (on the URL's host and on what it resolves to) and at every delivery,
 * on the very address the socket connects to.
 */

/** Why a target is refused, or null when it is a public unicast address. */
export type Refusal = string | null;

/**
 * IPv4 the way inet_aton reads it (and browsers' URL parsers): 1 to 4 dot-separated parts, each
 * decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes. So
 * `2130706433`, `0x7f.1` and `017700000001` are all 127.0.0.1. Answers dotted-quad or null.
 */
export function parseIPv4Loose(host: string): string | null {
  const h = host.endsWith('.') ? host.slice(0, -1) : host;
  if (h === '') return null;
  const parts = h.split('.');
  if (parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isFinite(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  for (const n of nums) if (n > 255) return null;
  if (last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  for (let i = 0; i < nums.length; i++) value += nums[i] * 256 ** (3 - i);
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function v4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

function v4Int(b: number[]): number {
  return ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
}

const V4_BLOCKS: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (shared address space)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  // Azure's platform endpoint (metadata / wireserver) is a public-looking address.
  ['168.63.129.16', 32, 'cloud metadata'],
];

/** Classifies a dotted-quad IPv4 address. */
export function classifyIPv4(ip: string): Refusal {
  const b = v4Bytes(ip);
  if (ip === '255.255.255.255') return 'broadcast';
  const n = v4Int(b);
  for (const [base, bits, why] of V4_BLOCKS) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (v4Int(v4Bytes(base)) & mask) >>> 0) return why;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (with an optional trailing dotted IPv4), or null. */
export function parseIPv6(ip: string): number[] | null {
  let s = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  // A trailing dotted IPv4 (::ffff:127.0.0.1) becomes two hex groups.
  const lastColon = s.lastIndexOf(':');
  const lastPart = s.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    const q = v4Bytes(lastPart);
    s = s.slice(0, lastColon + 1) + ((q[0] << 8) | q[1]).toString(16) + ':' + ((q[2] << 8) | q[3]).toString(16);
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const fill = rest === null ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array(Math.max(fill, 0)).fill('0'), ...restGroups];
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) {
    const v = parseInt(g, 16);
    bytes.push(v >> 8, v & 255);
  }
  return bytes;
}

function prefixMatches(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const bit = 7 - (i & 7);
    if (((bytes[byte] >> bit) & 1) !== (((prefix[byte] ?? 0) >> bit) & 1)) return false;
  }
  return true;
}

const embeddedV4 = (b: number[], at: number) => b.slice(at, at + 4).join('.');

/** Classifies an IPv6 address; only global unicast (2000::/3) outside special blocks passes. */
export function classifyIPv6(ip: string): Refusal {
  const b = parseIPv6(ip);
  if (!b) return 'not an IPv6 address';
  if (b.every((x) => x === 0)) return 'unspecified';
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return 'loopback';
  if (prefixMatches(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return 'IPv4-mapped IPv6';
  // NAT64 well-known prefix: reaches the embedded IPv4 address, so judge that one.
  if (prefixMatches(b, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) {
    const inner = classifyIPv4(embeddedV4(b, 12));
    return inner ? `NAT64 of ${inner}` : null;
  }
  if (prefixMatches(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return 'local-use NAT64';
  if (prefixMatches(b, [0], 8)) return 'reserved IPv6 (::/8, includes IPv4-compatible forms)';
  if (prefixMatches(b, [0xfc], 7)) return 'unique local (ULA)';
  if (prefixMatches(b, [0xfe, 0x80], 10)) return 'link-local';
  if (prefixMatches(b, [0xfe, 0xc0], 10)) return 'site-local';
  if (b[0] === 0xff) return 'multicast';
  if (prefixMatches(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'documentation';
  if (prefixMatches(b, [0x3f, 0xff], 20)) return 'documentation';
  if (prefixMatches(b, [0x20, 0x01, 0x00, 0x00], 23)) return 'IETF protocol assignments (Teredo and others)';
  // 6to4 carries an IPv4 address in bytes 2..5.
  if (prefixMatches(b, [0x20, 0x02], 16)) {
    const inner = classifyIPv4(embeddedV4(b, 2));
    return inner ? `6to4 of ${inner}` : null;
  }
  if (!prefixMatches(b, [0x20], 3)) return 'reserved IPv6 (outside global unicast)';
  return null;
}

/** Classifies an IP address in canonical form (what DNS answers, what a socket reports). */
export function classifyAddress(ip: string): Refusal {
  if (isIPv4(ip)) return classifyIPv4(ip);
  if (isIPv6(ip.replace(/%.*$/, ''))) return classifyIPv6(ip);
  return 'not an IP address';
}

const BLOCKED_NAMES = ['localhost', 'metadata', 'metadata.google.internal', 'instance-data', 'instance-data.ec2.internal'];
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.in-addr.arpa', '.ip6.arpa'];

export type HostKind = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

/** Reads a URL hostname: an IP literal in any numeric form, or a DNS name (lowercased, no trailing dot). */
export function readHost(hostname: string): HostKind {
  const h = hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) return { kind: 'ip', address: h.slice(1, -1) };
  if (isIPv6(h)) return { kind: 'ip', address: h };
  const v4 = parseIPv4Loose(h);
  if (v4) return { kind: 'ip', address: v4 };
  return { kind: 'name', name: h.endsWith('.') ? h.slice(0, -1) : h };
}

/** Refusal of a host name before any DNS lookup: local names and single labels never leave the network. */
export function classifyName(name: string): Refusal {
  if (BLOCKED_NAMES.includes(name)) return 'a local or metadata host name';
  if (BLOCKED_SUFFIXES.some((s) => name.endsWith(s))) return 'a local host name';
  if (!name.includes('.')) return 'a single-label (intranet) host name';
  return null;
}

export interface TargetCheck {
  ok: boolean;
  /** Why the URL is refused, phrased for `body.url: …`. */
  problem?: string;
  url?: URL;
  host?: HostKind;
}

/**
 * The URL rules that need no DNS: https, a host, no credentials, and (unless private targets are
 * allowed) no local name or non-public IP literal.
 */
export function checkTargetUrl(raw: string, opts: { allowPrivate: boolean }): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: 'must use https' };
  if (url.username || url.password) return { ok: false, problem: 'must not carry credentials' };
  if (!url.hostname) return { ok: false, problem: 'has no host' };
  const host = readHost(url.hostname);
  if (!opts.allowPrivate) {
    const why = host.kind === 'ip' ? classifyAddress(host.address) : classifyName(host.name);
    if (why) return { ok: false, problem: `is refused (${why}); only public hosts are allowed` };
  }
  return { ok: true, url, host };
}
