import { ValidationError } from '../../../platform/errors/domain-error';
import { OutboundUrlPolicy } from '../../../platform/net/outbound-url-policy';
import { URL_MAX_LENGTH, UrlPolicyError, urlTooLongMessage } from '../../../platform/net/url-policy.rules';
import { WebhookUrlError } from '../webhooks.errors';
import {
  brokerPolicyMessage,
  destinationIssues,
  isBrokerUrl,
  parseBrokerUrl,
  RabbitmqOptions,
  rabbitmqShown,
} from '../rabbitmq-destination.rules';

/** A subscription's destination as stored: its url (a broker's without the password), options, password (open). */
export interface CheckedDestination {
  url: string;
  rabbitmq: RabbitmqOptions | null;
  password: string | null;
}

/** Receiver authentication (issue 42) is an HTTP receiver's: a broker authenticates with its url's user and password. */
const HTTP_ONLY_OPTIONS = ['headers', 'oauth2', 'mtls'] as const;

function httpOnlyIssues(url: string, input: Partial<Record<(typeof HTTP_ONLY_OPTIONS)[number], unknown>>) {
  if (!isBrokerUrl(url)) return [];
  return HTTP_ONLY_OPTIONS.filter((name) => input[name] !== undefined && input[name] !== null).map((name) => ({
    pointer: `#/${name}`,
    detail: `${name} is only for an http(s) receiver: a broker authenticates with the user and password of its amqp(s) url`,
  }));
}

/**
 * The url and `rabbitmq` of a create or a PATCH that changes either, checked together (issue 43): an
 * http(s) url through `checkHttpUrl` (the subscriptions' rules), an amqp(s) url taken apart and its host
 * through the same outbound policy (`amqps:` as `https:`, `amqp:` as `http:`). `current` is the
 * subscription's stored destination on a PATCH (what the request leaves unchanged).
 */
export async function checkedDestination(
  policy: OutboundUrlPolicy,
  checkHttpUrl: (raw: string) => Promise<string>,
  input: { url?: string; rabbitmq?: RabbitmqOptions | null } & Partial<Record<(typeof HTTP_ONLY_OPTIONS)[number], unknown>>,
  current?: { url: string; rabbitmq: RabbitmqOptions | null },
): Promise<CheckedDestination & { passwordChanged: boolean }> {
  const rawUrl = input.url ?? current!.url;
  const rabbitmq = input.rabbitmq !== undefined ? input.rabbitmq : (current?.rabbitmq ?? null);
  const issues = [...destinationIssues(rawUrl, rabbitmq), ...httpOnlyIssues(rawUrl, input)];
  if (issues.length > 0) throw new ValidationError(issues[0].detail, issues);
  const shown = rabbitmq ? rabbitmqShown(rabbitmq) : null;
  if (input.url === undefined) return { url: current!.url, rabbitmq: shown, password: null, passwordChanged: false };
  if (!isBrokerUrl(input.url)) return { url: await checkHttpUrl(input.url), rabbitmq: shown, password: null, passwordChanged: true };
  try {
    const broker = parseBrokerUrl(input.url);
    await policy.check(broker.policyUrl, { requireHttps: true });
    if (broker.stored.length > URL_MAX_LENGTH) throw new WebhookUrlError('malformed', urlTooLongMessage(URL_MAX_LENGTH));
    return { url: broker.stored, rabbitmq: shown, password: broker.password, passwordChanged: true };
  } catch (error) {
    if (error instanceof UrlPolicyError) throw new WebhookUrlError(error.violation, brokerPolicyMessage(error));
    throw error;
  }
}
