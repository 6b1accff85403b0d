import { FieldIssue } from '../../platform/errors/domain-error';
import { URL_MESSAGES, UrlPolicyError } from '../../platform/net/url-policy.rules';

/**
 * RabbitMQ destinations (issue 43, an extension; docs/webhooks.md "Message broker destinations"): a
 * subscription whose url is `amqps://user:password@host:5671/vhost` (or `amqp://` where plain `http://`
 * is allowed) publishes each attempt to an exchange instead of POSTing it. Pure rules shared by the
 * subscriptions API (validation, the stored form) and the engine's AMQP destination (the broker to connect to).
 */

/** The subscription's `rabbitmq` options, stored and shown as given. */
export interface RabbitmqOptions {
  /** The exchange to publish to; "" is the default exchange (routingKey required then). */
  exchange: string;
  /** Absent: each message's routing key is its event's name (`booking.create`). */
  routingKey?: string;
}

/** AMQP's short strings (exchange names, routing keys) hold at most 255 bytes. */
export const AMQP_SHORT_STRING_MAX = 255;

/** The broker's default ports (`amqps:` 5671, `amqp:` 5672). */
const DEFAULT_PORTS: Record<string, number> = { 'amqps:': 5671, 'amqp:': 5672 };

/** True for a url naming a broker (amqp: or amqps:) rather than an HTTP receiver. */
export function isBrokerUrl(raw: string): boolean {
  return /^amqps?:\/\//i.test(raw);
}

/** A broker url taken apart: the stored form (no password), the password, and what a connection needs. */
export interface BrokerUrl {
  /** `amqps://user@host:5671/vhost`: what every read shows and the unique index compares. */
  stored: string;
  /** The password, kept sealed apart from the url; null when the url had none. */
  password: string | null;
  tls: boolean;
  hostname: string;
  port: number;
  username: string;
  /** The virtual host ("/" when the url has no path). */
  vhost: string;
  /**
   * The same host and port as an http(s) URL (`amqps:` ↔ `https:`, `amqp:` ↔ `http:`), for the outbound
   * URL policy: a broker's host obeys the same rules as an HTTP receiver's, and plain amqp is allowed
   * exactly where plain http is.
   */
  policyUrl: string;
}

/** Parses an amqp(s) url; throws UrlPolicyError (malformed) when it is not one the engine can connect to. */
export function parseBrokerUrl(raw: string): BrokerUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlPolicyError('malformed', BROKER_URL_MESSAGE);
  }
  const scheme = url.protocol.toLowerCase();
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined || url.hostname === '' || url.search !== '' || url.hash !== '') {
    throw new UrlPolicyError('malformed', BROKER_URL_MESSAGE);
  }
  const path = url.pathname === '' || url.pathname === '/' ? '' : url.pathname.slice(1);
  if (path.includes('/')) throw new UrlPolicyError('malformed', BROKER_URL_MESSAGE);
  let username: string;
  let password: string | null;
  let vhost: string;
  try {
    username = decodeURIComponent(url.username);
    password = url.password === '' ? null : decodeURIComponent(url.password);
    vhost = path === '' ? '/' : decodeURIComponent(path);
  } catch {
    throw new UrlPolicyError('malformed', BROKER_URL_MESSAGE);
  }
  const hostname = url.hostname.toLowerCase();
  const port = url.port === '' ? defaultPort : Number(url.port);
  const user = url.username === '' ? '' : `${url.username}@`;
  const httpScheme = scheme === 'amqps:' ? 'https:' : 'http:';
  return {
    stored: `${scheme}//${user}${hostname}:${port}${path === '' ? '' : `/${path}`}`,
    password,
    tls: scheme === 'amqps:',
    hostname,
    port,
    username,
    vhost,
    policyUrl: `${httpScheme}//${hostname}:${port}/`,
  };
}

const BROKER_URL_MESSAGE = 'must be an absolute amqp(s) URL: amqps://user:password@host:5671/vhost (no query or fragment)';

/** Where the policy's message speaks of http(s), a broker url's speaks of amqp(s). */
export function brokerPolicyMessage(error: UrlPolicyError): string {
  if (error.message === URL_MESSAGES.https) return 'must use amqps';
  if (error.message === URL_MESSAGES.scheme || error.message === URL_MESSAGES.malformed) return BROKER_URL_MESSAGE;
  return error.message;
}

/**
 * What is wrong with a subscription's url and rabbitmq together (empty: nothing): a broker url needs
 * `rabbitmq`, an http(s) url takes none, and the default exchange ("") needs a routing key.
 */
export function destinationIssues(url: string, rabbitmq: RabbitmqOptions | null | undefined): FieldIssue[] {
  const broker = isBrokerUrl(url);
  if (broker && !rabbitmq) {
    return [{ pointer: '#/rabbitmq', detail: 'rabbitmq is required with an amqp(s) url: { "exchange": string, "routingKey"?: string }' }];
  }
  if (!broker && rabbitmq) return [{ pointer: '#/rabbitmq', detail: 'rabbitmq is only for an amqp(s) url' }];
  for (const field of ['exchange', 'routingKey'] as const) {
    // AMQP counts a short string in bytes: 255 characters outside ASCII are more.
    const value = rabbitmq?.[field];
    if (value !== undefined && Buffer.byteLength(value, 'utf8') > AMQP_SHORT_STRING_MAX) {
      return [{ pointer: `#/rabbitmq/${field}`, detail: `rabbitmq.${field} must be at most ${AMQP_SHORT_STRING_MAX} bytes in UTF-8` }];
    }
  }
  if (rabbitmq && rabbitmq.exchange === '' && (rabbitmq.routingKey === undefined || rabbitmq.routingKey === '')) {
    return [{ pointer: '#/rabbitmq/routingKey', detail: 'rabbitmq.routingKey is required with the default exchange ("")' }];
  }
  return [];
}

/** The routing key of a message: the subscription's, or the event's name (a test delivery's too). */
export function routingKeyOf(options: RabbitmqOptions, eventName: string): string {
  return options.routingKey ?? eventName;
}

/** The context a broker password is sealed for (its subscription's row). */
export function brokerPasswordContext(subscriptionId: string): string {
  return `${subscriptionId}:amqp`;
}

/** The stored options in the order they are shown (exchange, then routingKey when given). */
export function rabbitmqShown(options: RabbitmqOptions): RabbitmqOptions {
  return options.routingKey === undefined ? { exchange: options.exchange } : { exchange: options.exchange, routingKey: options.routingKey };
}
