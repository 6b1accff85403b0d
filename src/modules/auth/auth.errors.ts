import { DomainError } from '../../platform/errors/domain-error';

export class InvalidApiKeyError extends DomainError {
  constructor() {
    super('unauthenticated', 'unauthorized', 'Missing or invalid x-api-key');
  }
}

export class SubscriptionInactiveError extends DomainError {
  constructor() {
    super('forbidden', 'subscription_inactive', 'The account subscription is inactive or its plan does not include API access');
  }
}

export class LegacyKeyRequiredError extends DomainError {
  constructor() {
    super(
      'forbidden',
      'legacyKeyRequired',
      'The legacy API takes legacy API keys only; Platform keys call the /v1 routes (docs/legacy.md)',
    );
  }
}

export class TestKeyNotAcceptedError extends DomainError {
  constructor() {
    super('forbidden', 'testKeyNotAccepted', 'The legacy API takes no test keys: test mode is a Platform API feature (docs/test-mode.md)');
  }
}
