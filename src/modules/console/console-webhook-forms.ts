import { FieldIssue, ValidationError } from '../../platform/errors/domain-error';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { CreateWebhookDto } from '../webhooks/subscriptions/dto/create-webhook.dto';
import { UpdateWebhookDto } from '../webhooks/subscriptions/dto/update-webhook.dto';
import { filtersSelectingNothing, isValidEventFilter } from '../webhooks/subscriptions/event-filter.rules';
import type { SignatureScheme } from '../webhooks/subscriptions/webhook-subscription.rules';
import { isBrokerUrl, RabbitmqOptions } from '../webhooks/rabbitmq-destination.rules';
import type { ConsoleCaller } from './console-session.guard';
import { parseFilterList } from './console.rules';

/** A subscription form as typed (shown again after a refusal): the add form has maxRetries, both have v1a and ordered. */
export interface SubscriptionForm {
  url?: string;
  eventFilters?: string;
  maxRetries?: string;
  v1a?: boolean;
  ordered?: boolean;
  /** A RabbitMQ destination's exchange and routing key (issue 43): read only with an amqp(s) url. */
  rabbitmqExchange?: string;
  rabbitmqRoutingKey?: string;
}

export function subscriptionForm(caller: ConsoleCaller): SubscriptionForm {
  return {
    url: caller.field('url'),
    eventFilters: caller.field('eventFilters'),
    maxRetries: caller.field('maxRetries'),
    v1a: caller.field('v1a') === 'on',
    ordered: caller.field('ordered') === 'on',
    rabbitmqExchange: caller.field('rabbitmqExchange'),
    rabbitmqRoutingKey: caller.field('rabbitmqRoutingKey'),
  };
}

/** The form's rabbitmq for the API: with an amqp(s) url, its exchange and (when typed) routing key; otherwise none. */
function rabbitmqOf(form: SubscriptionForm): RabbitmqOptions | undefined {
  if (!isBrokerUrl(form.url ?? '')) return undefined;
  const routingKey = form.rabbitmqRoutingKey ?? '';
  return { exchange: form.rabbitmqExchange ?? '', ...(routingKey === '' ? {} : { routingKey }) };
}

const schemes = (form: SubscriptionForm): SignatureScheme[] => (form.v1a ? ['v1', 'v1a'] : ['v1']);

/** The add form as POST /v1/webhooks's body, checked by its rules (and the filters as below). */
/** `eventNames`: every event the house publishes (the filters are checked against them). */
export function createInput(form: SubscriptionForm, eventNames: readonly string[]): Promise<CreateWebhookDto> {
  const filters = parseFilterList(form.eventFilters ?? '');
  return checked(CreateWebhookDto, filters, eventNames, {
    url: form.url ?? '',
    eventFilters: filters,
    signatureSchemes: schemes(form),
    ordered: form.ordered === true,
    ...(form.maxRetries ? { maxRetries: Number(form.maxRetries) } : {}),
    ...(rabbitmqOf(form) ? { rabbitmq: rabbitmqOf(form) } : {}),
  });
}

/**
 * The settings form as PATCH /v1/webhooks/{id}'s body (url, filters, schemes, ordered, rabbitmq), checked
 * likewise. A broker url left as shown (`currentUrl`, without its password) is not sent, so the password stays.
 */
export function updateInput(form: SubscriptionForm, eventNames: readonly string[], currentUrl?: string): Promise<UpdateWebhookDto> {
  const filters = parseFilterList(form.eventFilters ?? '');
  const url = form.url ?? '';
  const keepsBroker = isBrokerUrl(url) && url === currentUrl;
  return checked(UpdateWebhookDto, filters, eventNames, {
    ...(keepsBroker ? {} : { url }),
    rabbitmq: rabbitmqOf(form) ?? null,
    eventFilters: filters,
    signatureSchemes: schemes(form),
    ordered: form.ordered === true,
  });
}

/**
 * The REST route's DTO rules, with each event filter judged on its own, once: one that is not a filter,
 * and (the console's own check: a person typed it) one that selects no event of the catalogue, such as
 * `booking.nonsense`. The API takes those (a program may subscribe ahead of a new event); a form flags them.
 */
async function checked<T extends object>(dto: new () => T, filters: string[], eventNames: readonly string[], body: object): Promise<T> {
  const filterIssues = eachFilterIssue(filters, eventNames);
  let input: T | undefined;
  let issues: FieldIssue[] = [];
  try {
    input = await validateStrictly(dto, body, 'body');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues = (error.extras.errors as FieldIssue[] | undefined) ?? [];
  }
  // Each bad filter says so itself: the list's own message about them would repeat it.
  if (filterIssues.length > 0) issues = [...issues.filter((issue) => !issue.pointer.startsWith('#/eventFilters')), ...filterIssues];
  if (issues.length > 0 || !input) throw new ValidationError(`Invalid form: ${issues.map((i) => i.detail).join('; ')}`, issues);
  return input;
}

function eachFilterIssue(filters: string[], eventNames: readonly string[]): FieldIssue[] {
  const nothing = new Set(filtersSelectingNothing(filters.filter(isValidEventFilter), eventNames));
  return filters.flatMap((filter, i): FieldIssue[] => {
    const pointer = `#/eventFilters/${i}`;
    if (!isValidEventFilter(filter))
      return [
        {
          pointer,
          detail: `Event filter "${filter}" is not a filter: use an event name (property.create), a prefix (jobRequest.*) or *`,
        },
      ];
    if (nothing.has(filter))
      return [{ pointer, detail: `Event filter "${filter}" ${filter.endsWith('.*') ? 'matches' : 'names'} no event` }];
    return [];
  });
}
