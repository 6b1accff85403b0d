import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, Dispatcher, request } from 'undici';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { untilAborted } from '../async/until-aborted';
import { OutboundUrlPolicy, policyViolationOf } from './outbound-url-policy';
import { UrlPolicyError } from './url-policy.rules';

export type DownloadFailure = 'unreachable' | 'timeout' | 'too_large' | 'http_status' | 'forbidden_url' | 'too_many_redirects';

/** `message` is human text ('the URL did not answer within 10 s'); `cause` holds the UrlPolicyError for forbidden_url. */
export class DownloadError extends Error {
  constructor(
    readonly failure: DownloadFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DownloadError';
  }
}

export interface Downloaded {
  bytes: Buffer;
  contentType: string | undefined;
  finalUrl: string;
  /** The server answered 304 to a conditional request: `bytes` is empty, the caller's copy is current. */
  notModified: boolean;
  /** The response's validators, for the next conditional request. */
  etag: string | undefined;
  lastModified: string | undefined;
}

/** Validators of a copy the caller holds: sent as If-None-Match / If-Modified-Since, and a 304 is then an answer. */
export interface ConditionalGet {
  etag?: string | null;
  lastModified?: string | null;
}

export interface DownloadLimits {
  /** Overall budget: every policy check, every hop and the whole body. */
  timeoutMs: number;
  /** Largest accepted body; exactly maxBytes is accepted. */
  maxBytes: number;
  /** Names the thing in messages: 'the image is larger than 10 MB'. Default 'the file'. */
  label?: string;
  /** Default false: downloads accept http and https (webhooks are the https-only case). */
  requireHttps?: boolean;
  /** Default 3. */
  maxRedirects?: number;
  /** Accept header; default: any media type. */
  accept?: string;
  /** Makes the GET conditional (calendar feeds); a 304 then returns notModified instead of failing. */
  conditional?: ConditionalGet;
}

/** Only what safeDownload needs, so tests can put a policy per hop. */
export type UrlChecker = Pick<OutboundUrlPolicy, 'check'>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * GET a URL safely: the policy checks the URL and every redirect hop (followed here, never by the agent),
 * the agent re-checks addresses at connect time, one time-out covers everything, and the byte cap is
 * enforced while streaming (and up front when Content-Length announces too much).
 */
export async function safeDownload(policy: UrlChecker, agent: Dispatcher, url: string, limits: DownloadLimits): Promise<Downloaded> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    return await follow(policy, agent, url, limits, signal);
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (signal.aborted) throw timeoutError(limits);
    throw error;
  }
}

async function follow(
  policy: UrlChecker,
  agent: Dispatcher,
  url: string,
  limits: DownloadLimits,
  signal: AbortSignal,
): Promise<Downloaded> {
  const maxRedirects = limits.maxRedirects ?? 3;
  let current = url;
  for (let hop = 0; ; hop += 1) {
    let target: URL;
    try {
      target = (await untilAborted(policy.check(current, { requireHttps: limits.requireHttps ?? false }), signal)).url;
    } catch (error) {
      throw policyFailure(error, hop, limits, signal);
    }

    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        dispatcher: agent,
        method: 'GET',
        signal,
        headers: { accept: limits.accept ?? '*/*', 'user-agent': 'property-ops-platform', ...conditionalHeaders(limits.conditional) },
      });
    } catch (error) {
      throw networkFailure(error, hop, limits, signal);
    }

    const status = response.statusCode;
    if (REDIRECT_STATUSES.has(status)) {
      await discard(response.body);
      const location = headerValue(response.headers.location);
      if (!location) throw new DownloadError('http_status', `the URL answered with HTTP ${status} but no Location`);
      if (hop >= maxRedirects) throw new DownloadError('too_many_redirects', `the URL redirected more than ${maxRedirects} times`);
      try {
        current = new URL(location, target).href;
      } catch {
        throw new DownloadError('forbidden_url', 'redirect to an invalid URL');
      }
      continue;
    }
    const validators = { etag: headerValue(response.headers.etag), lastModified: headerValue(response.headers['last-modified']) };
    if (status === 304 && Object.keys(conditionalHeaders(limits.conditional)).length > 0) {
      await discard(response.body);
      return { bytes: Buffer.alloc(0), contentType: undefined, finalUrl: target.href, notModified: true, ...validators };
    }
    if (status < 200 || status > 299) {
      await discard(response.body);
      throw new DownloadError('http_status', `the URL answered with HTTP ${status}`);
    }

    const announced = Number(headerValue(response.headers['content-length']));
    if (Number.isFinite(announced) && announced > limits.maxBytes) {
      abandon(response.body);
      throw tooLarge(limits);
    }
    const bytes = await readCapped(response.body, limits, signal);
    return { bytes, contentType: headerValue(response.headers['content-type']), finalUrl: target.href, notModified: false, ...validators };
  }
}

async function readCapped(body: Dispatcher.ResponseData['body'], limits: DownloadLimits, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += (chunk as Buffer).length;
      if (total > limits.maxBytes) {
        abandon(body); // stop reading now; the connection is closed rather than drained
        throw tooLarge(limits);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (signal.aborted) throw timeoutError(limits);
    throw new DownloadError('unreachable', 'the connection broke while reading the response', { cause: error });
  }
  return Buffer.concat(chunks, total);
}

function policyFailure(error: unknown, hop: number, limits: DownloadLimits, signal: AbortSignal): Error {
  const violation = policyViolationOf(error);
  if (!violation) return signal.aborted ? timeoutError(limits) : (error as Error);
  if (violation.violation === 'unresolvable') {
    const where = hop === 0 ? 'the URL' : 'the redirect target';
    return new DownloadError('unreachable', `${where} could not be reached: ${violation.message}`, { cause: violation });
  }
  return forbidden(violation, hop);
}

function forbidden(violation: UrlPolicyError, hop: number): DownloadError {
  if (hop === 0) return new DownloadError('forbidden_url', violation.message, { cause: violation });
  const what = violation.violation === 'malformed' || violation.violation === 'scheme' ? 'URL' : 'host';
  return new DownloadError('forbidden_url', `redirect to a forbidden ${what}: ${violation.message}`, { cause: violation });
}

function networkFailure(error: unknown, hop: number, limits: DownloadLimits, signal: AbortSignal): Error {
  const violation = policyViolationOf(error);
  if (violation) return policyFailure(violation, hop, limits, signal);
  if (signal.aborted) return timeoutError(limits);
  const code = (error as { code?: string } | undefined)?.code ?? '';
  if (TIMEOUT_CODES.has(code)) return timeoutError(limits);
  return new DownloadError('unreachable', `the URL could not be reached: ${describeNetworkError(code, error)}`, { cause: error });
}

function describeNetworkError(code: string, error: unknown): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host does not resolve';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'connection closed unexpectedly';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'no route to host';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'TLS certificate not trusted';
  return error instanceof Error && error.message ? error.message : 'network error';
}

function timeoutError(limits: DownloadLimits): DownloadError {
  return new DownloadError('timeout', `the URL did not answer within ${formatSeconds(limits.timeoutMs)}`);
}

function tooLarge(limits: DownloadLimits): DownloadError {
  return new DownloadError('too_large', `${limits.label ?? 'the file'} is larger than ${formatBytes(limits.maxBytes)}`);
}

/** 10000 → '10 s', 1500 → '1.5 s', 200 → '0.2 s'. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Binary units as people write them: 10485760 → '10 MB', 512000 → '500 KB', 1500 → '1.5 KB', 900 → '900 bytes'. */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024 * 1024, 'GB'],
    [1024 * 1024, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

function conditionalHeaders(conditional: ConditionalGet | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (conditional?.etag) headers['if-none-match'] = conditional.etag;
  if (conditional?.lastModified) headers['if-modified-since'] = conditional.lastModified;
  return headers;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Drain a small unwanted body so the socket can be reused; large ones are cut (dump destroys past the limit). */
async function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/** Destroying an undici body emits an abort error; nobody else listens, so swallow it. */
function abandon(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Injectable downloader with one shared, policy-checked keep-alive agent and limits from config. */
@Injectable()
export class SafeDownloader implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly defaults: AppConfig['download'];

  constructor(
    private readonly policy: OutboundUrlPolicy,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'download'>,
  ) {
    this.defaults = config.download;
    this.agent = policy.createAgent({ connections: 16, connectTimeoutMs: config.download.timeoutMs });
  }

  /** Limits default to DOWNLOAD_TIMEOUT_MS / DOWNLOAD_MAX_BYTES; throws DownloadError. */
  download(url: string, limits: Partial<DownloadLimits> = {}): Promise<Downloaded> {
    return safeDownload(this.policy, this.agent, url, { ...this.defaults, ...limits });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}
