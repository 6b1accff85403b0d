/**
 * Errors that services and rules throw. They carry no HTTP types: the global
 * exception filter maps `kind` to a status and renders a problem document.
 * `code` is the problem's machine-readable code (the spec's where it names one).
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'method_not_allowed'
  | 'invalid_state'
  | 'unprocessable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable';

export interface FieldIssue {
  /** JSON Pointer to the field, e.g. `#/taskGroups/0/tasks/1/colour`. */
  pointer: string;
  detail: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    detail: string,
    /** Extra members of the problem document (e.g. existingId, errors). */
    readonly extras: Record<string, unknown> = {},
    /** Response headers the problem needs (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(resource: string, id: string, extras: Record<string, unknown> = {}) {
    super('not_found', 'notFound', `${resource} ${id} was not found`, extras);
  }
}

export class ConflictError extends DomainError {
  constructor(detail: string, extras: Record<string, unknown> = {}) {
    super('conflict', 'conflict', detail, extras);
  }
}

export class InvalidStateError extends DomainError {
  constructor(detail: string, extras: Record<string, unknown> = {}) {
    super('invalid_state', 'invalidState', detail, extras);
  }
}

/** A request value that fails a rule; `errors` lists each failing field. */
export class ValidationError extends DomainError {
  constructor(detail: string, errors: FieldIssue[] = [], code = 'validationFailed') {
    super('invalid', code, detail, errors.length ? { errors } : {});
  }

  static field(pointer: string, detail: string): ValidationError {
    return new ValidationError(detail, [{ pointer, detail }]);
  }
}
