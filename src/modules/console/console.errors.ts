import { DomainError } from '../../platform/errors/domain-error';

export class ConsoleSignedOutError extends DomainError {
  constructor() {
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
