import { ConflictError, DomainError, InvalidStateError, NotFoundError, ValidationError } from '../../platform/errors/domain-error';
import { InvalidCursorError } from '../../platform/pagination/cursor';
import type { UrlPolicyError } from '../../platform/net/url-policy.rules';

export class WebhookNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Webhook subscription', id);
  }
}

export class LegacyWebhookNotFoundError extends DomainError {
  constructor() {
    super('not_found', 'notFound', 'This account has no legacy webhook; PUT /legacy/webhook sets one');
  }
}

export class WebhookDeliveryNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Webhook delivery', id);
  }
}

/** A URL rule violation on create or url change (spec 4.8 rule 6): the detail starts with 'Webhook url'. */
export class WebhookUrlError extends ValidationError {
  constructor(
    readonly violation: UrlPolicyError['violation'],
    reason: string,
  ) {
    const detail = `Webhook url ${reason}`;
    super(detail, [{ pointer: '#/url', detail }], 'invalidWebhookUrl');
  }

  static from(error: UrlPolicyError): WebhookUrlError {
    return new WebhookUrlError(error.violation, error.message);
  }
}

/** An OAuth2 tokenUrl that breaks the url's rules (issue 42): the same code as the url's, pointing at the field. */
export class TokenUrlError extends ValidationError {
  constructor(reason: string) {
    const detail = `oauth2.tokenUrl ${reason}`;
    super(detail, [{ pointer: '#/oauth2/tokenUrl', detail }], 'invalidWebhookUrl');
  }
}

/** One subscription per URL within an account (spec 4.8 rule 2); existingId lets the client PATCH that one instead. */
export class DuplicateWebhookUrlError extends ConflictError {
  constructor(existingId: string | undefined) {
    super(
      existingId
        ? `A webhook subscription for this url already exists (${existingId}); update that subscription instead`
        : 'A webhook subscription for this url already exists; update that subscription instead',
      existingId ? { existingId } : {},
    );
  }
}

export class UnknownDeliveryCursorError extends InvalidCursorError {
  constructor() {
    super(
      'The cursor is not a delivery of this webhook subscription (it may be older than the 90-day retention); restart the listing without it',
    );
  }
}

/** The delivery engine sends nothing to a disabled subscription, test deliveries included: say so now rather than log a failure. */
export class WebhookDisabledError extends InvalidStateError {
  constructor(id: string) {
    super(`Webhook subscription ${id} is disabled; enable it (PATCH with enabled true) before sending a test delivery`);
  }
}

/** The engine sends nothing to a disabled subscription: a retry or replay is refused up front (extension). */
export class WebhookDisabledForDeliveryError extends InvalidStateError {
  constructor(id: string, what: 'retry' | 'replay') {
    super(`Webhook subscription ${id} is disabled; enable it (PATCH with enabled true) before a ${what}`);
  }
}

/** POST …/retry of a delivery whose attempt is being sent right now (or that changed under the request). */
export class DeliveryInFlightError extends ConflictError {
  constructor(deliveryId: string) {
    super(`Webhook delivery ${deliveryId} has an attempt in flight; look at the delivery log and try again once it is recorded`);
  }
}

/** One running replay per subscription (extension): existingId names it. */
export class ReplayRunningError extends ConflictError {
  constructor(existingId: string | undefined) {
    super(
      existingId
        ? `A replay of this subscription is running (${existingId}); wait for it to finish`
        : 'A replay of this subscription is running; wait for it to finish',
      existingId ? { existingId } : {},
    );
  }
}

export class WebhookReplayNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Webhook replay', id);
  }
}

/** A replay window the event log cannot serve. */
export class ReplayWindowError extends ValidationError {
  constructor(pointer: '#/since' | '#/until', detail: string) {
    super(detail, [{ pointer, detail }]);
  }
}
