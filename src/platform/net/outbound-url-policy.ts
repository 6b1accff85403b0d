import { promises as dns, LookupAddress, LookupOptions } from 'node:dns';
import { isIP, LookupFunction, Socket } from 'node:net';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { Agent, buildConnector } from 'undici';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { untilAborted } from '../async/until-aborted';
import { traceConnection } from './request-trace';
import { checkUrlShape, isPublicAddress, URL_MESSAGES, UrlPolicyError } from './url-policy.rules';
import { errorChain } from '../errors/error-chain';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface CheckedUrl {
  url: URL;
  addresses: ResolvedAddress[];
}

/** Resolves a host name to all its addresses; rejects when it does not resolve. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Optional provider: replaces system DNS (tests map names to loopback or private addresses). */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** getaddrinfo can hang for the resolver's full retry cycle; a URL check should not. */
const LOOKUP_TIMEOUT_MS = 5000;

/** System resolver (honours /etc/hosts like the socket would), every address, in resolver order. */
export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export interface AgentOptions {
  /** Max sockets per origin (undici `connections`); unlimited when omitted. */
  connections?: number;
  /** Idle keep-alive socket lifetime (default 4 s, undici's default). */
  keepAliveTimeoutMs?: number;
  /** TCP + TLS connect time-out (default 10 s). */
  connectTimeoutMs?: number;
  /** A client certificate to present (mutual TLS) and, when `ca` is given, the only CA trusted for the server. */
  tls?: { cert: string; key: string; ca?: string };
}

/**
 * Outbound URL policy (spec 4.8 rule 6) with DNS: the shape rules, then every resolved address must be
 * public unless ALLOW_PRIVATE_URLS. The agent repeats the address check at connect time on the addresses
 * the socket actually uses, so a name that re-resolves to a private address (DNS rebinding) never connects.
 */
@Injectable()
export class OutboundUrlPolicy {
  private readonly allowPrivate: boolean;
  private readonly resolver: HostResolver;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'allowPrivateUrls'>, @Optional() @Inject(HOST_RESOLVER) resolver?: HostResolver) {
    this.allowPrivate = config.allowPrivateUrls;
    this.resolver = resolver ?? systemResolver;
  }

  /** Shape checks + resolution; throws UrlPolicyError (unresolvable, non_public_address, or a shape violation). */
  async check(raw: string, options: { requireHttps: boolean }): Promise<CheckedUrl> {
    const url = checkUrlShape(raw, { allowPrivate: this.allowPrivate, requireHttps: options.requireHttps });
    const addresses = await this.resolveChecked(bareHost(url.hostname));
    return { url, addresses };
  }

  /**
   * An undici Agent that connects only to addresses passing the policy. Keep-alive sockets are pooled per
   * origin and reused; redirects are never followed (callers check each hop themselves).
   */
  createAgent(options: AgentOptions = {}): Agent {
    const connector = buildConnector({
      lookup: this.connectLookup,
      timeout: options.connectTimeoutMs ?? 10_000,
      ...(options.tls ?? {}),
    });
    const allowPrivate = this.allowPrivate;
    // Node skips `lookup` for IP-literal hosts, so those are checked here before any socket opens.
    const guarded: buildConnector.connector = (connectOptions, callback) => {
      const host = bareHost(connectOptions.hostname);
      if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
        callback(new UrlPolicyError('non_public_address', URL_MESSAGES.nonPublic), null);
        return;
      }
      // undici's connector returns the socket it opens: its phases go to the request being traced, if any.
      const socket = (connector as (...args: Parameters<buildConnector.connector>) => Socket | undefined)(connectOptions, callback);
      if (socket) traceConnection(socket, connectOptions.protocol, host);
    };
    return new Agent({
      connect: guarded,
      ...(options.connections !== undefined ? { connections: options.connections } : {}),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    });
  }

  /** net.connect lookup: resolves afresh and fails the connection when any address is refused. */
  private readonly connectLookup: LookupFunction = (hostname, options: LookupOptions, callback) => {
    this.resolveChecked(hostname).then(
      (all) => {
        const wanted = familyOf(options.family);
        const usable = wanted ? all.filter((entry) => entry.family === wanted) : all;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), '', undefined);
        } else if (options.all) {
          callback(
            null,
            usable.map((entry): LookupAddress => ({ address: entry.address, family: entry.family })),
          );
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', undefined),
    );
  };

  private async resolveChecked(host: string): Promise<ResolvedAddress[]> {
    const literal = isIP(host);
    let addresses: ResolvedAddress[];
    if (literal !== 0) {
      addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await untilAborted(this.resolver(host), AbortSignal.timeout(LOOKUP_TIMEOUT_MS));
      } catch {
        throw new UrlPolicyError('unresolvable', URL_MESSAGES.unresolvable);
      }
    }
    if (addresses.length === 0) throw new UrlPolicyError('unresolvable', URL_MESSAGES.unresolvable);
    // Every address must pass: the socket may pick any of them (happy eyeballs, round robin).
    if (!this.allowPrivate && addresses.some((entry) => !isPublicAddress(entry.address))) {
      throw new UrlPolicyError('non_public_address', URL_MESSAGES.nonPublic);
    }
    return addresses;
  }
}

/**
 * The UrlPolicyError behind an error, looking through `.cause` chains (fetch wraps connect errors in a
 * TypeError) and AggregateError `.errors` (happy eyeballs); undefined for a plain network failure.
 */
export function policyViolationOf(error: unknown): UrlPolicyError | undefined {
  for (const behind of errorChain(error)) if (behind instanceof UrlPolicyError) return behind;
  return undefined;
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function familyOf(family: LookupOptions['family']): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}
