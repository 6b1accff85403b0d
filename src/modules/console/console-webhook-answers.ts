import { RequestContext } from '../../platform/context/request-context';
import { DomainError, FieldIssue } from '../../platform/errors/domain-error';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { ListDeliveriesQueryDto } from '../webhooks/subscriptions/dto/list-deliveries.dto';
import type { ConsoleCaller } from './console-session.guard';
import { html } from './views/html';
import { Notice } from './views/layout';
import type { LogFilter } from './views/subscription.view';

/** The request context a console action runs with: the session's account, this request's id. */
export function consoleContext(caller: ConsoleCaller): RequestContext {
  return { accountId: caller.accountId, requestId: caller.requestId, clientRequestId: `req_${caller.requestId}` };
}

/** The delivery log's page as the REST route takes it (its DTO's rules: a bad status or cursor is a 400 page). */
export function logQueryOf(caller: ConsoleCaller, limit: number): Promise<ListDeliveriesQueryDto> {
  const given = (name: string) => caller.query(name) || undefined;
  const query = { limit: String(limit), status: given('status'), eventName: given('eventName'), cursor: given('cursor') };
  return validateStrictly(
    ListDeliveriesQueryDto,
    Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)),
    'query',
  );
}

export function logFilterOf(query: ListDeliveriesQueryDto): LogFilter {
  return { status: query.status, eventName: query.eventName };
}

/**
 * An action's refusal in words, each thing said once: the fields at fault as a list (each its own
 * message), or the service's message; for a duplicate URL, a link to the subscription that has it.
 */
export function refusal(error: DomainError, what: string): Notice {
  const fields = (error.extras.errors as FieldIssue[] | undefined) ?? [];
  const existing = typeof error.extras.existingId === 'string' ? error.extras.existingId : undefined;
  if (fields.length > 0)
    return {
      kind: 'error',
      text: html`${what}
        <ul>
          ${fields.map((field) => html`<li>${field.detail}</li>`)}
        </ul>`,
    };
  return {
    kind: 'error',
    text: html`${what} ${error.message}${existing ? html` <a href="/console/webhooks/${existing}">Go to subscription ${existing}</a>.` : ''}`,
  };
}
