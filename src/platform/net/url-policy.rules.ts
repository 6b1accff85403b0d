import * as ipaddr from 'ipaddr.js';

/**
 * Outbound URL rules shared by webhook delivery and picture downloads (spec 4.8 rule 6).
 * Pure: no DNS, no I/O. OutboundUrlPolicy adds resolution and the connect-time check.
 */

export type UrlViolation = 'malformed' | 'scheme' | 'ip_literal' | 'forbidden_host' | 'non_public_address' | 'unresolvable';

export interface UrlRules {
  /** Development and tests only: admits http, IP literals, local names and private addresses. */
  allowPrivate: boolean;
  requireHttps: boolean;
}

/** `message` is human text without a field name, e.g. 'must use https'; callers prefix it ('Webhook url …'). */
export class UrlPolicyError extends Error {
  constructor(
    readonly violation: UrlViolation,
    message: string,
  ) {
    super(message);
    this.name = 'UrlPolicyError';
  }
}

/**
 * The longest URL the service takes anywhere (a link it shows, fetches or posts to): one limit for
 * every module, so the same URL is never accepted by one route and refused by another.
 */
export const URL_MAX_LENGTH = 2048;

export const URL_MESSAGES = {
  malformed: 'must be an absolute http(s) URL',
  userinfo: 'must not contain a user name or password',
  https: 'must use https',
  scheme: 'must use http or https',
  ipLiteral: 'host must be a domain name, not an IP address',
  forbiddenName: 'host is a local, internal or cloud-metadata name',
  singleLabel: 'host must be a fully qualified public domain name',
  nonPublic: 'host resolves to a non-public address',
  unresolvable: 'host does not resolve',
} as const;

/**
 * A normalised url over `max` characters (percent-encoding can make a url several times longer than sent;
 * a stored url must fit its module's unique index, whose entries hold about 2.7 kB).
 */
export function urlTooLongMessage(max: number): string {
  return `is longer than ${max} characters once normalised (characters outside ASCII count as their percent-encoding)`;
}

/**
 * Names that never reach a public service. Exact names: loopback aliases and the cloud instance-metadata
 * endpoints (most of these resolve to 169.254.169.254 or fd00:ec2::254, which the address check rejects too,
 * but refusing the name gives a clearer message and covers split-horizon DNS).
 */
const FORBIDDEN_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'metadata', // GCP short name
  'metadata.google.internal', // GCP (also caught by .internal)
  'metadata.goog', // GCP
  'instance-data', // AWS short name
  'instance-data.ec2.internal', // AWS (also caught by .internal)
  'metadata.azure.com', // Azure
  'metadata.packet.net', // Equinix Metal
  'metadata.platformequinix.com', // Equinix Metal
  'metadata.tencentyun.com', // Tencent Cloud
  'kubernetes.default', // in-cluster API server
  'kubernetes.default.svc',
]);

/**
 * Suffixes (the name itself or any subdomain) that are local-only by standard or convention:
 * RFC 6761/6762 special-use (localhost, local, test, invalid, onion, home.arpa), RFC 6762 appendix G
 * private-use TLDs (internal, intranet, private, corp, home, lan), localdomain, and alt (RFC 9476).
 */
const FORBIDDEN_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'localdomain',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'home.arpa',
  'test',
  'invalid',
  'onion',
  'alt',
];

/**
 * Parses and checks the shape of an outbound URL (no DNS). Returns the parsed URL or throws UrlPolicyError.
 * Order: malformed → scheme → userinfo → IP literal → forbidden name → single-label name.
 */
export function checkUrlShape(raw: string, rules: UrlRules): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw new UrlPolicyError('malformed', URL_MESSAGES.malformed);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlPolicyError('malformed', URL_MESSAGES.malformed);
  }

  const allowed = rules.requireHttps && !rules.allowPrivate ? ['https:'] : ['http:', 'https:'];
  if (!allowed.includes(url.protocol)) {
    throw new UrlPolicyError('scheme', allowed.length === 1 ? URL_MESSAGES.https : URL_MESSAGES.scheme);
  }
  if (url.hostname === '') throw new UrlPolicyError('malformed', URL_MESSAGES.malformed);
  // Credentials in a URL end up in logs and delivery records; refuse them even in development.
  if (url.username !== '' || url.password !== '') throw new UrlPolicyError('malformed', URL_MESSAGES.userinfo);

  if (rules.allowPrivate) return url;

  if (isIpLiteralHost(url.hostname) || isIpLiteralHost(rawHostOf(raw))) {
    throw new UrlPolicyError('ip_literal', URL_MESSAGES.ipLiteral);
  }
  const name = stripTrailingDots(url.hostname.toLowerCase());
  if (name === '') throw new UrlPolicyError('malformed', URL_MESSAGES.malformed);
  if (isForbiddenName(name)) throw new UrlPolicyError('forbidden_host', URL_MESSAGES.forbiddenName);
  // A single-label name (`intranet`, `printer`) only resolves through a local search domain.
  if (!name.includes('.')) throw new UrlPolicyError('forbidden_host', URL_MESSAGES.singleLabel);
  return url;
}

/** True for the names refused by policy (exact list or forbidden suffix); expects lower case, no trailing dot. */
export function isForbiddenName(name: string): boolean {
  if (FORBIDDEN_NAMES.has(name)) return true;
  return FORBIDDEN_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

/**
 * True when `host` is an IP address in any notation: dotted IPv4, bracketed or bare IPv6, and the
 * legacy forms the WHATWG parser would turn into IPv4 (2130706433, 0x7f.1, 0177.0.0.1, 127.1).
 * Per WHATWG, a host whose last label is numeric is an IPv4 address (or invalid), so that is the test.
 */
export function isIpLiteralHost(host: string): boolean {
  if (host === '') return false;
  if (host.startsWith('[') || host.includes(':')) return true;
  const labels = stripTrailingDots(host).split('.');
  const last = labels[labels.length - 1];
  return /^(0x[0-9a-f]*|[0-9]+)$/i.test(last);
}

/** Host as typed in the raw input (before WHATWG normalisation), without userinfo or port; '' when not found. */
export function rawHostOf(raw: string): string {
  const match = /^[ \t\n\r\f]*[a-z][a-z0-9+.-]*:[\\/]*([^\\/?#]*)/i.exec(raw);
  if (!match) return '';
  let authority = match[1];
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1 || undefined);
  const colon = authority.indexOf(':');
  return colon >= 0 ? authority.slice(0, colon) : authority;
}

function stripTrailingDots(name: string): string {
  return name.replace(/\.+$/, '');
}

/** IPv6 global unicast (2000::/3); everything outside it is reserved, local or special-purpose. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** IPv4-compatible (deprecated) ::a.b.c.d; never a legitimate destination. */
const IPV4_COMPATIBLE_V6 = ipaddr.parseCIDR('::/96');
/** Well-known NAT64 prefix: the last 32 bits are the IPv4 destination. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * True when the address is public unicast. Refuses loopback, RFC 1918, link-local (incl. 169.254.169.254),
 * CGNAT, unique-local, multicast, unspecified, broadcast, reserved, benchmarking, documentation ranges,
 * and IPv6 forms that embed a refused IPv4 address (mapped, SIIT, NAT64, 6to4, Teredo).
 * Anything that does not parse as an address is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (typeof address !== 'string') return false;
  let bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (bare.includes(':')) {
    // Zone ids (fe80::1%eth0) only exist on scoped, hence non-public, addresses.
    if (bare.includes('%')) return false;
    // Canonicalise with the WHATWG parser: ipaddr.js reads '::a.b.c.d' as IPv4-mapped, which it is not.
    const canonical = canonicalIpv6(bare);
    if (canonical === undefined) return false;
    bare = canonical;
  }
  if (!ipaddr.isValid(bare)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return false;
  }
  return parsed.kind() === 'ipv4' ? isPublicV4(parsed as ipaddr.IPv4) : isPublicV6(parsed as ipaddr.IPv6);
}

function canonicalIpv6(address: string): string | undefined {
  try {
    const host = new URL(`http://[${address}]/`).hostname;
    return host.slice(1, -1);
  } catch {
    return undefined;
  }
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special range (private, loopback, linkLocal, carrierGradeNat, reserved incl.
  // documentation and 198.18/15, unspecified 0/8, broadcast, multicast, as112, amt); only 'unicast' is public.
  return address.range() === 'unicast';
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return isPublicV4(embeddedV4(address, 12));
  if (address.match(NAT64_WELL_KNOWN)) return isPublicV4(embeddedV4(address, 12));
  if (address.match(IPV4_COMPATIBLE_V6)) return false;
  if (range === '6to4') return isPublicV4(embeddedV4(address, 2));
  if (range === 'teredo') {
    // Server address in bits 32-63, client address (bit-inverted) in the last 32 bits.
    const bytes = address.toByteArray();
    const client = new ipaddr.IPv4(bytes.slice(12, 16).map((b) => b ^ 0xff));
    return isPublicV4(embeddedV4(address, 4)) && isPublicV4(client);
  }
  return range === 'unicast' && address.match(GLOBAL_UNICAST_V6);
}

function embeddedV4(address: ipaddr.IPv6, byteOffset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(address.toByteArray().slice(byteOffset, byteOffset + 4));
}
