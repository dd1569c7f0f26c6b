import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Mode } from '../platform/db/mode.ts';

/**
 * Pure SSRF rules for webhook targets: which hosts and addresses a delivery may reach.
 * Used at registration (on the URL's host and on what it resolves to) and at every delivery,
 * on the very address the socket connects to. Addresses are parsed and matched against CIDR
 * blocks by ipaddr.js; the tables below only say which blocks are refused and why.
 */

/** Why a target is refused, or null when it is a public unicast address. */
export type Refusal = string | null;

/**
 * IPv4 the way the WHATWG URL parser reads a host (inet_aton's forms: 1 to 4 dot-separated parts,
 * each decimal, octal or hex, the last filling the remaining bytes), so `2130706433`, `0x7f.1` and
 * `017700000001` are all 127.0.0.1. That is the parser undici's URLs go through, so the address
 * judged is the one dialled. Answers dotted-quad or null.
 */
export function parseIPv4Loose(host: string): string | null {
  // Digits, hex and dots only: a port, path or `user@` would make the URL parser read another host.
  if (!/^[0-9a-fx.]+$/i.test(host)) return null;
  try {
    const { hostname } = new URL(`http://${host}/`);
    return isIPv4(hostname) ? hostname : null;
  } catch {
    return null;
  }
}

type Block<Address> = { range: [Address, number]; why: string };

const v4 = (cidr: string, why: string): Block<ipaddr.IPv4> => ({ range: ipaddr.IPv4.parseCIDR(cidr), why });
const v6 = (cidr: string, why: string): Block<ipaddr.IPv6> => ({ range: ipaddr.IPv6.parseCIDR(cidr), why });

// First match wins. ipaddr.js's own range() lumps documentation, benchmarking and 6to4 relays into
// "reserved", and these reasons reach the API user, so the table names them.
const V4_BLOCKS = [
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'unspecified ("this network")'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT (shared address space)'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local (cloud metadata lives here)'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
  // Azure's platform endpoint (metadata / wireserver) is a public-looking address.
  v4('168.63.129.16/32', 'cloud metadata'),
];

const refusalOfIPv4 = (address: ipaddr.IPv4): Refusal => V4_BLOCKS.find((block) => address.match(block.range))?.why ?? null;

/** Classifies a dotted-quad IPv4 address. */
export function classifyIPv4(ip: string): Refusal {
  if (!ipaddr.IPv4.isValidFourPartDecimal(ip)) return 'not an IPv4 address';
  return refusalOfIPv4(ipaddr.IPv4.parse(ip));
}

/** An IPv6 address, bracketed or not, with or without a zone (which does not change the address). */
function readIPv6(ip: string): ipaddr.IPv6 | null {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  // ipaddr.js reads `::a.b.c.d` as IPv4-mapped (::ffff:a.b.c.d), but it is the IPv4-compatible form,
  // other bytes. The WHATWG URL parser writes any address as hex groups, which ipaddr.js reads exactly.
  const hexGroups = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.parse(hexGroups);
}

/** The 16 bytes of an IPv6 address (bracketed, with a zone, or with a trailing dotted IPv4), or null. */
export function parseIPv6(ip: string): number[] | null {
  return readIPv6(ip)?.toByteArray() ?? null;
}

// Prefixes that carry an IPv4 address: such a target reaches that address, so it is judged instead.
const V4_CARRIERS = [
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), via: 'NAT64', at: 12 },
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), via: '6to4', at: 2 },
];

const V6_BLOCKS = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'IPv4-mapped IPv6'),
  v6('64:ff9b:1::/48', 'local-use NAT64'),
  v6('::/8', 'reserved IPv6 (::/8, includes IPv4-compatible forms)'),
  v6('fc00::/7', 'unique local (ULA)'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('2001::/23', 'IETF protocol assignments (Teredo and others)'),
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** Classifies an IPv6 address; only global unicast (2000::/3) outside special blocks passes. */
export function classifyIPv6(ip: string): Refusal {
  const address = readIPv6(ip);
  if (!address) return 'not an IPv6 address';
  const carrier = V4_CARRIERS.find((c) => address.match(c.range));
  if (carrier) {
    const inner = refusalOfIPv4(new ipaddr.IPv4(address.toByteArray().slice(carrier.at, carrier.at + 4)));
    return inner ? `${carrier.via} of ${inner}` : null;
  }
  const block = V6_BLOCKS.find((b) => address.match(b.range));
  if (block) return block.why;
  if (!address.match(GLOBAL_UNICAST)) return 'reserved IPv6 (outside global unicast)';
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

/** A loopback host: `localhost`, 127.0.0.0/8 in any numeric form, `[::1]` (what a receiver on a laptop listens on). */
export function isLoopback(host: HostKind): boolean {
  if (host.kind === 'name') return host.name === 'localhost';
  if (isIPv4(host.address)) return host.address.startsWith('127.');
  const v6 = readIPv6(host.address);
  return v6 !== null && v6.range() === 'loopback';
}

/**
 * Plain-HTTP loopback targets (`http://localhost:8080/hooks`): for sandbox endpoints on a server that is not
 * in production, so that a receiver can be developed on a laptop (issue 32). Live endpoints, and every
 * endpoint of a production server, keep the rules above.
 */
export const loopbackHttpAllowed = (environment: string, mode: Mode): boolean => mode === 'sandbox' && environment !== 'production';

const HTTPS_ONLY = 'must use https';
const HTTPS_ONLY_HERE = 'must use https (plain http to localhost is for sandbox keys, on a server that is not in production)';

export interface TargetCheck {
  ok: boolean;
  /** A plain-HTTP loopback target, allowed by `loopbackHttp`: reached without TLS and without DNS. */
  loopback?: boolean;
  /** Why the URL is refused, phrased for `body.url: …`. */
  problem?: string;
  url?: URL;
  host?: HostKind;
}

/**
 * The URL rules that need no DNS: https, a host, no credentials, and (unless private targets are
 * allowed) no local name or non-public IP literal.
 */
export function checkTargetUrl(raw: string, opts: { allowPrivate: boolean; loopbackHttp?: boolean }): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'is not a valid URL' };
  }
  if (url.username || url.password) return { ok: false, problem: 'must not carry credentials' };
  if (url.protocol === 'http:' && url.hostname) {
    const host = readHost(url.hostname);
    if (!isLoopback(host)) return { ok: false, problem: HTTPS_ONLY };
    return opts.loopbackHttp ? { ok: true, loopback: true, url, host } : { ok: false, problem: HTTPS_ONLY_HERE };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: HTTPS_ONLY };
  if (!url.hostname) return { ok: false, problem: 'has no host' };
  const host = readHost(url.hostname);
  if (!opts.allowPrivate) {
    const why = host.kind === 'ip' ? classifyAddress(host.address) : classifyName(host.name);
    if (why) return { ok: false, problem: `is refused (${why}); only public hosts are allowed` };
  }
  return { ok: true, url, host };
}
