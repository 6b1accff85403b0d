import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors/domain-error';
import type { UrlPolicyError } from '../../platform/net/url-policy.rules';
import { FEED_LIMITS } from './calendar-feed.rules';

export class CalendarFeedNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Calendar feed', id);
  }
}

/** The outbound URL rules of webhooks (https, public addresses): the detail starts with 'Calendar feed url'. */
export class CalendarFeedUrlError extends ValidationError {
  constructor(reason: string) {
    const detail = `Calendar feed url ${reason}`;
    super(detail, [{ pointer: '#/url', detail }], 'invalidCalendarFeedUrl');
  }

  static from(error: UrlPolicyError): CalendarFeedUrlError {
    return new CalendarFeedUrlError(error.message);
  }
}

export class TooManyCalendarFeedsError extends ConflictError {
  constructor(propertyId: string) {
    super(`Property ${propertyId} already has ${FEED_LIMITS.perProperty} calendar feeds, the most it can have; delete one first`, {
      propertyId,
      limit: FEED_LIMITS.perProperty,
    });
  }
}

export class DuplicateCalendarFeedError extends ConflictError {
  constructor(existingId: string | undefined) {
    super(
      existingId
        ? `The property already has a calendar feed for this url (${existingId}); update that feed instead`
        : 'The property already has a calendar feed for this url; update that feed instead',
      existingId ? { existingId } : {},
    );
  }
}
