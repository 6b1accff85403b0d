import { createHash } from 'node:crypto';
import { FieldIssue, ValidationError } from '../../platform/errors/domain-error';
import type { ProviderInvite } from './job-request.entity';
import type { JobTimeType } from '../reminders/reminder.rules';
import { assertTimeOrder, Coordinates, CopiedChecklist, JobTime, OneOffTask } from './job-snapshot.rules';

/** Limits where the spec is silent (docs/job-requests.md). */
export const JOB_LIMITS = {
  serviceProviders: 50,
  email: 254,
  checklists: 20,
  oneOffTasksPerJob: 100,
  oneOffTitle: 200,
  oneOffNote: 2000,
  currency: 3,
  maxPrice: 1_000_000_000,
  otherAttributes: 100,
  sourceBookingId: 100,
  providerName: 100,
} as const;

const emailKey = (email: string) => email.trim().toLowerCase();

/**
 * The invitation list for these emails. Emails compare case-insensitively; a repeated one is a 400.
 * A provider already on `previous` keeps their answer (a PATCH that re-sends the list changes nothing).
 */
export function inviteProviders(emails: string[], previous: ProviderInvite[] = []): ProviderInvite[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  emails.forEach((email, i) => {
    if (seen.has(emailKey(email)))
      issues.push({ pointer: `#/serviceProviders/${i}/email`, detail: `serviceProviders[${i}].email ${email} is listed more than once` });
    seen.add(emailKey(email));
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);
  return emails.map((email) => ({ email, answer: findInvite(previous, email)?.answer ?? 'invited' }));
}

export function findInvite(invites: ProviderInvite[], email: string): ProviderInvite | undefined {
  return invites.find((invite) => emailKey(invite.email) === emailKey(email));
}

/** The job's invitation of this email; anyone else is a 400 at `pointer`. */
export function invitedProvider(
  job: { id: string; serviceProviders: ProviderInvite[] },
  email: string,
  pointer = '#/email',
): ProviderInvite {
  const invite = findInvite(job.serviceProviders, email);
  if (!invite) throw ValidationError.field(pointer, `${email} is not an invited service provider of job request ${job.id}`);
  return invite;
}

/** The invites with this provider's answer replaced. */
export function answerInvite(invites: ProviderInvite[], email: string, answer: ProviderInvite['answer']): ProviderInvite[] {
  return invites.map((invite) => (emailKey(invite.email) === emailKey(email) ? { ...invite, answer } : invite));
}

export function everyProviderDeclined(invites: ProviderInvite[]): boolean {
  return invites.length > 0 && invites.every((invite) => invite.answer === 'declined');
}

/** A provider's id: stable for one email within one account, so the same cleaner has the same id on every job. */
export function providerIdOf(accountId: string, email: string): string {
  return `cln_${createHash('sha256')
    .update(`${accountId}\n${emailKey(email)}`)
    .digest('hex')
    .slice(0, 26)}`;
}

/** The name shown when a provider gives none: the local part of the email. */
export function defaultProviderName(email: string): string {
  return email.slice(0, email.lastIndexOf('@')) || email;
}

/** Checklist ids repeated in one request are a 400 at each repeat. */
export function assertDistinctChecklistIds(ids: string[]): void {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  ids.forEach((id, i) => {
    if (seen.has(id)) issues.push({ pointer: `#/checklists/${i}/checklistId`, detail: `Checklist ${id} is listed more than once` });
    seen.add(id);
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);
}

/** A job's checklists must belong to the job's property (400 at each other one). `indexOf` maps a copy to its request index. */
export function assertChecklistsOfProperty(
  copies: CopiedChecklist[],
  propertyId: string,
  indexOf: (copy: CopiedChecklist) => number,
): void {
  const issues: FieldIssue[] = copies
    .filter((copy) => copy.propertyId !== propertyId)
    .map((copy) => ({
      pointer: `#/checklists/${indexOf(copy)}/checklistId`,
      detail: `Checklist ${copy.checklistId} belongs to another property than the job's (${propertyId})`,
    }));
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);
}

/**
 * The job's checklists after a PATCH that lists `requested`: ids already on the job keep the copy
 * taken when they were attached (a later edit or disabling of the checklist never reaches the job),
 * new ids take the `fresh` copies, ids left out are dropped. Order is the request's.
 */
export function assembleChecklists(current: CopiedChecklist[], requested: string[], fresh: CopiedChecklist[]): CopiedChecklist[] {
  const byId = new Map([...current, ...fresh].map((copy) => [copy.checklistId, copy]));
  return requested.map((id) => {
    const copy = byId.get(id);
    if (!copy) throw new Error(`assembleChecklists: no copy of ${id}`);
    return copy;
  });
}

/** The ids of `requested` the job does not hold a copy of yet. */
export function checklistIdsToCopy(current: CopiedChecklist[], requested: string[]): string[] {
  const held = new Set(current.map((copy) => copy.checklistId));
  return requested.filter((id) => !held.has(id));
}

export interface OneOffTaskInput {
  title: string;
  note: string;
  sourcePictureUrl?: string | null;
}

/**
 * POST …/oneOffTasks: a task whose title equals (exactly) one already on the job updates it in place
 * (its taskId is kept; note and sourcePictureUrl are replaced); any other is added with a new taskId.
 * A title repeated within one request is a 400; more than oneOffTasksPerJob in all is a 400.
 */
export function mergeOneOffTasks(current: OneOffTask[], input: OneOffTaskInput[], mintTaskId: () => string): OneOffTask[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  input.forEach((task, i) => {
    if (seen.has(task.title)) issues.push({ pointer: `#/tasks/${i}/title`, detail: `tasks[${i}].title is listed more than once` });
    seen.add(task.title);
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);

  const merged = current.map((task) => ({ ...task }));
  for (const task of input) {
    const existing = merged.find((candidate) => candidate.title === task.title);
    const sourcePictureUrl = task.sourcePictureUrl ?? null;
    if (existing) Object.assign(existing, { note: task.note, sourcePictureUrl });
    else merged.push({ taskId: mintTaskId(), title: task.title, note: task.note, sourcePictureUrl });
  }
  if (merged.length > JOB_LIMITS.oneOffTasksPerJob) {
    throw ValidationError.field(
      '#/tasks',
      `A job holds at most ${JOB_LIMITS.oneOffTasksPerJob} one-off tasks; this request would make it ${merged.length}`,
    );
  }
  return merged;
}

/** A PATCH's time object: every field optional; null clears endTime or a duration. */
export interface TimeChanges {
  type?: JobTimeType;
  startTime?: Date;
  endTime?: Date | null;
  durationInHours?: number | null;
  durationInMinutes?: number | null;
}

/** The stored time with a PATCH's time fields applied; endTime must still come after startTime. */
export function mergeTime(current: JobTime, changes: TimeChanges): JobTime {
  const merged: JobTime = {
    type: changes.type ?? current.type,
    startTime: changes.startTime ?? current.startTime,
    endTime: changes.endTime === undefined ? current.endTime : changes.endTime,
    durationInHours: changes.durationInHours === undefined ? current.durationInHours : changes.durationInHours,
    durationInMinutes: changes.durationInMinutes === undefined ? current.durationInMinutes : changes.durationInMinutes,
  };
  assertTimeOrder(merged);
  return merged;
}

/** The job fields a host change may touch that a provider sees (receiveUpdates is the host's own setting). */
export interface HostEditable {
  serviceProviders: ProviderInvite[];
  time: JobTime;
  checklists: CopiedChecklist[];
  oneOffTasks: OneOffTask[];
  offeredPrice: number | null;
  offeredPriceCurrency: string | null;
  message: string | null;
}

/** True when the two differ in anything a provider would see (a PATCH that re-sends the current values is no change). */
export function hostEditableChanged(before: HostEditable, after: HostEditable): boolean {
  const comparable = (value: HostEditable) =>
    JSON.stringify({
      ...value,
      serviceProviders: value.serviceProviders.map((invite) => emailKey(invite.email)),
      checklists: value.checklists.map((copy) => copy.checklistId),
    });
  return comparable(before) !== comparable(after);
}

/** A provider's reported position (test helpers start and complete): both coordinates or neither. */
export interface Position {
  latitude?: number | null;
  longitude?: number | null;
}

/** The position as coordinates, or undefined when none was sent; one coordinate alone is a 400 naming the other. */
export function coordinatesOf(position: Position): Coordinates | undefined {
  const hasLatitude = position.latitude !== undefined && position.latitude !== null;
  const hasLongitude = position.longitude !== undefined && position.longitude !== null;
  if (hasLatitude !== hasLongitude) {
    const [missing, sent] = hasLatitude ? ['longitude', 'latitude'] : ['latitude', 'longitude'];
    throw ValidationError.field(`#/${missing}`, `${missing} is required when ${sent} is sent`);
  }
  return hasLatitude ? { latitude: position.latitude as number, longitude: position.longitude as number } : undefined;
}

/** completedTaskIds must name tasks of the job (`known`), each once: a 400 at each offender. */
export function assertCompletedTasks(jobRequestId: string, known: string[], completedTaskIds: string[]): void {
  const tasks = new Set(known);
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  completedTaskIds.forEach((taskId, i) => {
    if (seen.has(taskId)) issues.push({ pointer: `#/completedTaskIds/${i}`, detail: `Task ${taskId} is listed more than once` });
    else if (!tasks.has(taskId))
      issues.push({ pointer: `#/completedTaskIds/${i}`, detail: `Task ${taskId} is not a task of job request ${jobRequestId}` });
    seen.add(taskId);
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);
}
