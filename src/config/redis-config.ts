import { readFileSync } from 'node:fs';
import { ConfigError, printable } from './config-error';
import { redactUrl } from './env-validators';

/** A Redis (or Sentinel) server's address. */
export interface RedisHost {
  host: string;
  port: number;
}

/** Credentials and TLS of the data nodes behind Sentinel or a Cluster (with REDIS_URL they are in the URL). */
export interface RedisNodeAuth {
  username?: string;
  password?: string;
  /** REDIS_TLS=true: TLS to the data nodes, with the system CAs unless `ca` is set. */
  tls: boolean;
  /** The contents of REDIS_TLS_CA_FILE (read at start-up, so a wrong path stops the process at once). */
  ca?: string;
}

/**
 * Where the service's Redis is: exactly one of REDIS_URL (one server), REDIS_SENTINELS (a primary
 * found through Sentinel, followed across failovers) or REDIS_CLUSTER_NODES (a Redis Cluster). Every
 * connection of every process is made from this, by src/platform/redis/redis-factory.ts.
 */
export type RedisTarget =
  | { mode: 'single'; url: string }
  | { mode: 'sentinel'; sentinels: RedisHost[]; name: string; sentinelPassword?: string; auth: RedisNodeAuth }
  | { mode: 'cluster'; nodes: RedisHost[]; auth: RedisNodeAuth };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_SENTINEL_PORT = 26379;
const DEFAULT_CLUSTER_PORT = 6379;

const MODES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;
const NODE_SETTINGS = ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS', 'REDIS_TLS_CA_FILE'] as const;

/** An empty value counts as not set (as `REDIS_URL=` in a .env file copied from .env.example). */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** Reads the Redis variables; a ConfigError names the variable (or both variables) at fault. */
export function readRedisTarget(env: NodeJS.ProcessEnv): RedisTarget {
  const given = MODES.filter((name) => setting(env, name) !== undefined);
  if (given.length > 1) {
    throw new ConfigError(`${given[0]} and ${given[1]}: set only one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES`);
  }
  const mode = given[0] ?? 'REDIS_URL';
  if (setting(env, 'REDIS_SENTINEL_NAME') !== undefined && mode !== 'REDIS_SENTINELS') {
    throw new ConfigError('REDIS_SENTINEL_NAME: applies only with REDIS_SENTINELS');
  }
  if (setting(env, 'REDIS_SENTINEL_PASSWORD') !== undefined && mode !== 'REDIS_SENTINELS') {
    throw new ConfigError('REDIS_SENTINEL_PASSWORD: applies only with REDIS_SENTINELS');
  }
  if (mode === 'REDIS_URL') {
    // Silently ignoring a password the operator set would connect without it; say where it goes instead.
    const stray = NODE_SETTINGS.find((name) => setting(env, name) !== undefined);
    if (stray) throw new ConfigError(`${stray}: applies with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL put it in the URL`);
    return { mode: 'single', url: redisUrlOf(setting(env, 'REDIS_URL') ?? DEFAULT_REDIS_URL) };
  }
  const auth = nodeAuthOf(env);
  if (mode === 'REDIS_SENTINELS') {
    const name = setting(env, 'REDIS_SENTINEL_NAME');
    if (!name)
      throw new ConfigError('REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS (the name of the primary the sentinels monitor)');
    const sentinelPassword = env.REDIS_SENTINEL_PASSWORD || undefined;
    return {
      mode: 'sentinel',
      sentinels: hostsOf('REDIS_SENTINELS', setting(env, 'REDIS_SENTINELS')!, DEFAULT_SENTINEL_PORT),
      name,
      ...(sentinelPassword ? { sentinelPassword } : {}),
      auth,
    };
  }
  return { mode: 'cluster', nodes: hostsOf('REDIS_CLUSTER_NODES', setting(env, 'REDIS_CLUSTER_NODES')!, DEFAULT_CLUSTER_PORT), auth };
}

function redisUrlOf(input: string): string {
  if (!/^rediss?:\/\//.test(input)) throw new ConfigError(`REDIS_URL: must be a redis:// URL, got "${printable(redactUrl(input))}"`);
  return input;
}

function nodeAuthOf(env: NodeJS.ProcessEnv): RedisNodeAuth {
  const tlsSetting = setting(env, 'REDIS_TLS') ?? 'false';
  if (tlsSetting !== 'true' && tlsSetting !== 'false')
    throw new ConfigError(`REDIS_TLS: must be true or false, got "${printable(tlsSetting)}"`);
  const tls = tlsSetting === 'true';
  const caFile = setting(env, 'REDIS_TLS_CA_FILE');
  if (caFile && !tls) throw new ConfigError('REDIS_TLS_CA_FILE: applies only with REDIS_TLS=true');
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new ConfigError(`REDIS_TLS_CA_FILE: cannot read "${printable(caFile)}" (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const username = env.REDIS_USERNAME || undefined;
  const password = env.REDIS_PASSWORD || undefined;
  return { ...(username ? { username } : {}), ...(password ? { password } : {}), tls, ...(ca ? { ca } : {}) };
}

/** `host:port,host,[::1]:port` → hosts; the port defaults to `defaultPort`. */
export function hostsOf(variable: string, input: string, defaultPort: number): RedisHost[] {
  const hosts = input.split(',').map((item) => item.trim());
  if (hosts.some((item) => item === '')) throw new ConfigError(`${variable}: an empty entry in "${printable(input)}"`);
  return hosts.map((item) => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+))(?::(\d+))?$/.exec(item);
    const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
    if (!match || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ConfigError(`${variable}: "${printable(item)}" is not host:port (an IPv6 address as [addr]:port)`);
    }
    return { host: match[1] ?? match[2], port };
  });
}

/** How the service names where it is connected, in logs (never with credentials). */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.mode === 'single') return `redis ${redactUrl(target.url)}`;
  const list = (hosts: RedisHost[]) =>
    hosts.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)).join(',');
  if (target.mode === 'sentinel') return `sentinel ${target.name} via ${list(target.sentinels)}`;
  return `cluster ${list(target.nodes)}`;
}
