import { DomainError } from '../../platform/errors/domain-error';

export class ConsoleSignedOutError extends DomainError {
  /** `ended`: the browser holds a session that is over; `never`: it holds none. */
  constructor(readonly why: 'ended' | 'never') {
    super('unauthenticated', 'consoleSignedOut', 'No console session: it ended, or was never opened');
  }
}

export class CsrfTokenError extends DomainError {
  constructor() {
    super(
      'forbidden',
      'csrfTokenInvalid',
      'The form did not carry this session’s security token (it may come from an old page or another site). Reload the page and try again.',
    );
  }
}

/** Spec 5.3 in the console: what the API refuses with 403 subscription_inactive, the console refuses too. */
export class ApiAccessPausedError extends DomainError {
  constructor(what: string) {
    super(
      'forbidden',
      'subscription_inactive',
      `${what} while the account's subscription is inactive or its plan does not include the API. Keys can still be revoked.`,
    );
  }
}

/** A state-changing form without its one-post token: an old page (or a hand-made post); nothing was done. */
export class FormTokenError extends DomainError {
  constructor() {
    super('invalid', 'formTokenMissing', 'This form is out of date, so nothing was done. Reload the page and send it again.');
  }
}

/** The same form was posted again while its first post is still being done: that one counts. */
export class FormStillRunningError extends DomainError {
  constructor() {
    super(
      'conflict',
      'formStillRunning',
      'This form was already sent and is still being processed, so it was not sent again. Open the page again in a moment to see the result.',
    );
  }
}
