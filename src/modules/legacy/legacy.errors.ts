import { DomainError, NotFoundError, ValidationError } from '../../platform/errors/domain-error';
import type { FieldIssue } from '../../platform/errors/domain-error';

/** From LEGACY_SUNSET_AT on, every legacy route (spec 9.2). */
export class LegacyApiRetiredError extends DomainError {
  constructor(sunsetAt: Date) {
    super(
      'gone',
      'legacyApiRetired',
      `The legacy API was shut down on ${sunsetAt.toISOString()}; use the Platform API (/v1), see the migration guide linked in the Link header`,
    );
  }
}

export class LegacyBatchNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Legacy batch', id);
  }
}

/** A body that is not a legacy batch, beyond its DTO (legacy.rules batchShapeIssues). */
export class InvalidLegacyBatchError extends ValidationError {
  constructor(issues: FieldIssue[]) {
    super(`Invalid batch: ${issues.map((issue) => issue.detail).join('; ')}`, issues);
  }
}
