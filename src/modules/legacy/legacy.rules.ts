import type { FieldIssue } from '../../platform/errors/domain-error';

/**
 * Pure rules of the legacy batched API (spec 9, docs/legacy.md): the deprecation headers, the
 * retirement instant, the batch's shape beyond its DTO, and what each record runs on the Platform API.
 */

/** The Platform API's general availability, when the legacy API became deprecated (spec 9.2: Deprecation @1791504000). */
export const LEGACY_DEPRECATED_AT = new Date('2026-10-09T00:00:00Z');

export const LEGACY_ENTITIES = ['property', 'checklist', 'booking', 'reminder', 'jobRequest'] as const;
export const LEGACY_ACTIONS = ['create', 'update', 'delete'] as const;
export type LegacyEntity = (typeof LEGACY_ENTITIES)[number];
export type LegacyAction = (typeof LEGACY_ACTIONS)[number];

export const LEGACY_BATCH_LIMITS = { recordsMin: 1, recordsMax: 20, clientRequestIdMax: 100 } as const;

/**
 * The Platform route each legacy record runs (one code path: the same service and DTO). Deleting a
 * checklist disables it and deleting a job request cancels it (the Platform API has no delete for
 * either); a reminder has no update on either API.
 */
export const PLATFORM_EQUIVALENT: Record<LegacyEntity, Partial<Record<LegacyAction, string>>> = {
  property: { create: 'POST /v1/properties', update: 'PATCH /v1/properties/{propertyId}', delete: 'DELETE /v1/properties/{propertyId}' },
  checklist: {
    create: 'POST /v1/checklists',
    update: 'PATCH /v1/checklists/{checklistId}',
    delete: 'POST /v1/checklists/{checklistId}/disable',
  },
  booking: { create: 'POST /v1/bookings', update: 'PATCH /v1/bookings/{bookingId}', delete: 'DELETE /v1/bookings/{bookingId}' },
  reminder: { create: 'POST /v1/reminders', delete: 'DELETE /v1/reminders/{reminderId}' },
  jobRequest: {
    create: 'POST /v1/jobRequests',
    update: 'PATCH /v1/jobRequests/{jobRequestId}',
    delete: 'POST /v1/jobRequests/{jobRequestId}/cancel',
  },
};

/** The headers on every legacy response, errors included (spec 9.2). */
export function deprecationHeaders(sunsetAt: Date, docsUrl: string): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(LEGACY_DEPRECATED_AT.getTime() / 1000)}`,
    Sunset: sunsetAt.toUTCString(),
    Link: `<${docsUrl}>; rel="deprecation"`,
  };
}

export function isRetired(now: Date, sunsetAt: Date): boolean {
  return now.getTime() >= sunsetAt.getTime();
}

export interface LegacyRecordShape {
  clientRequestId: string;
  entity: LegacyEntity;
  action: LegacyAction;
  entityId?: string;
  data?: object;
  changes?: object;
}

/**
 * What makes a batch "not such a batch" beyond its DTO, answered at once with 400: a create carries
 * data (and no entityId or changes), an update entityId and changes (no data), a delete entityId only;
 * the action must exist for the entity; clientRequestId is unique within the batch.
 */
export function batchShapeIssues(records: readonly LegacyRecordShape[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Map<string, number>();
  records.forEach((record, index) => {
    const at = `#/records/${index}`;
    const issue = (field: string, detail: string) => issues.push({ pointer: field ? `${at}/${field}` : at, detail });
    const first = seen.get(record.clientRequestId);
    if (first !== undefined) issue('clientRequestId', `records[${index}].clientRequestId repeats records[${first}].clientRequestId`);
    else seen.set(record.clientRequestId, index);

    if (!PLATFORM_EQUIVALENT[record.entity][record.action]) {
      issue('action', `records[${index}].action ${record.action} is not offered for ${record.entity} (delete it and create it again)`);
      return;
    }
    const needs = { create: ['data'], update: ['entityId', 'changes'], delete: ['entityId'] }[record.action];
    for (const field of ['entityId', 'data', 'changes'] as const) {
      const present = record[field] !== undefined;
      if (needs.includes(field) && !present) issue(field, `records[${index}].${field} is required for a ${record.action}`);
      if (!needs.includes(field) && present) issue(field, `records[${index}].${field} is not allowed for a ${record.action}`);
    }
  });
  return issues;
}

/** One entry of a legacy.validationError event's results (and of a failed record in GET /legacy/batch). */
export interface LegacyRecordFailure {
  clientRequestId: string;
  entity: LegacyEntity;
  action: LegacyAction;
  /** The Platform problem's code: validationFailed, objectStrict, notFound, conflict, …; legacyApiRetired at the sunset. */
  code: string;
  errors: FieldIssue[];
}

/**
 * The errors of a record as the Platform problem would name them: the problem's `errors` when it has
 * them (validation), else one entry at the document root with its detail (not found, conflict, state).
 */
export function failureErrors(error: { message: string; extras: Record<string, unknown> }): FieldIssue[] {
  const listed = error.extras.errors;
  if (Array.isArray(listed) && listed.length > 0) return listed as FieldIssue[];
  return [{ pointer: '#', detail: error.message }];
}

/** The id of the resource a record created or changed, from the Platform response (or the entityId it named). */
export function resultIdOf(entity: LegacyEntity, response: unknown, entityId: string | undefined): string | null {
  const key = {
    property: 'propertyId',
    checklist: 'checklistId',
    booking: 'bookingId',
    reminder: 'reminderId',
    jobRequest: 'jobRequestId',
  }[entity];
  const value = (response as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' ? value : (entityId ?? null);
}
