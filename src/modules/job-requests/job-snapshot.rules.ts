import { ValidationError } from '../../platform/errors/domain-error';
import type { JobTimeType } from '../reminders/reminder.rules';

/**
 * The job engine's computations, pure: the schedule, the task plan and verification counts of the
 * copied checklists and one-off tasks, the location pair and the distances. The read shape
 * (job-request.response.ts) is built from these only, so the API and the events agree.
 */

/** The job time object as stored (spec 2.5): what the client sent, the end not yet derived. */
export interface JobTime {
  type: JobTimeType;
  startTime: Date;
  endTime: Date | null;
  durationInHours: number | null;
  durationInMinutes: number | null;
}

/** scheduledEndTime: endTime when sent, else startTime plus the durations (hours + minutes), else none. */
export function scheduledEndOf(time: JobTime): Date | null {
  if (time.endTime) return time.endTime;
  const minutes = (time.durationInHours ?? 0) * 60 + (time.durationInMinutes ?? 0);
  return minutes > 0 ? new Date(time.startTime.getTime() + minutes * 60_000) : null;
}

/** An endTime must come after startTime (400 at `#/time/endTime`). */
export function assertTimeOrder(time: JobTime): void {
  if (time.endTime && time.endTime.getTime() <= time.startTime.getTime()) {
    throw ValidationError.field(
      '#/time/endTime',
      `time.endTime (${time.endTime.toISOString()}) must be after time.startTime (${time.startTime.toISOString()})`,
    );
  }
}

/** What a job keeps of each checklist (ChecklistsService.snapshotForJob returns at least this). */
export interface CopiedTask {
  taskId: string;
  label: string;
  sourceTaskId: string | null;
}

export interface CopiedTaskGroup {
  taskGroupId: string;
  title: string;
  verificationRequired: boolean;
  tasks: CopiedTask[];
}

export interface CopiedChecklist {
  checklistId: string;
  propertyId: string;
  title: string;
  taskGroups: CopiedTaskGroup[];
}

/** An extra task the host added to one job (spec 2.6); its taskId is minted here, like checklist tasks. */
export interface OneOffTask {
  taskId: string;
  title: string;
  note: string;
  sourcePictureUrl: string | null;
}

export interface TaskPlan {
  /** Every checklist task and one-off task, plus one per step (task group) that requires a verification photo. */
  totalTaskCount: number;
  /** One photo per step that requires verification. */
  requiredVerificationPictureCount: number;
}

export function planTasks(checklists: CopiedChecklist[], oneOffTasks: OneOffTask[]): TaskPlan {
  let tasks = oneOffTasks.length;
  let photoSteps = 0;
  for (const checklist of checklists) {
    for (const group of checklist.taskGroups) {
      tasks += group.tasks.length;
      if (group.verificationRequired) photoSteps += 1;
    }
  }
  return { totalTaskCount: tasks + photoSteps, requiredVerificationPictureCount: photoSteps };
}

/** Every task id a cleaner can report completed: the copied checklists' tasks, then the one-off tasks. */
export function taskIdsOf(checklists: CopiedChecklist[], oneOffTasks: OneOffTask[]): string[] {
  return [
    ...checklists.flatMap((checklist) => checklist.taskGroups.flatMap((group) => group.tasks.map((task) => task.taskId))),
    ...oneOffTasks.map((task) => task.taskId),
  ];
}

/** One entry per task of the job, in order, for jobRequest.completed (completion reported by taskId). */
export interface TaskResult {
  taskId: string;
  /** null for a one-off task. */
  checklistId: string | null;
  label: string;
  sourceTaskId: string | null;
  completed: boolean;
}

export function taskResultsOf(checklists: CopiedChecklist[], oneOffTasks: OneOffTask[], completedTaskIds: string[]): TaskResult[] {
  const done = new Set(completedTaskIds);
  return [
    ...checklists.flatMap((checklist) =>
      checklist.taskGroups.flatMap((group) =>
        group.tasks.map((task) => ({
          taskId: task.taskId,
          checklistId: checklist.checklistId,
          label: task.label,
          sourceTaskId: task.sourceTaskId,
          completed: done.has(task.taskId),
        })),
      ),
    ),
    ...oneOffTasks.map((task) => ({
      taskId: task.taskId,
      checklistId: null,
      label: task.title,
      sourceTaskId: null,
      completed: done.has(task.taskId),
    })),
  ];
}

export type ProblemStatus = 'open' | 'inProgress' | 'resolved' | 'ignored';
export const PROBLEM_STATUSES: readonly ProblemStatus[] = ['open', 'inProgress', 'resolved', 'ignored'];

/** A problem as the cleaner reported it; the description is kept but never returned (spec 2.6). */
export interface StoredProblem {
  severity: number;
  status: ProblemStatus;
  step: string;
  checklist: string;
  description: string | null;
  reportedAt: string;
}

export interface ProblemResponse {
  severity: number;
  status: ProblemStatus;
  step: string;
  checklist: string;
  reportedAt: string;
}

/** What the verification object is computed from. */
export interface VerificationInput extends TaskPlan {
  completedTaskIds: string[];
  verificationPictureCount: number;
  problems: StoredProblem[];
  startDistanceMeters: number | null;
  endDistanceMeters: number | null;
}

export interface Verification {
  completedTaskCount: number;
  totalTaskCount: number;
  verificationPictureCount: number;
  requiredVerificationPictureCount: number;
  problemCount: number;
  problems?: ProblemResponse[];
  startDistanceMeters?: number;
  endDistanceMeters?: number;
}

/**
 * Spec 2.6 verification: completed tasks plus the verification photos taken (each counts as a
 * completed task, up to the photos required, so the count never passes totalTaskCount); problems
 * only when some were reported, without their description; distances only when a location was
 * recorded. No coordinates: the cleaner's position is never part of it.
 */
export function verificationOf(input: VerificationInput): Verification {
  const photos = Math.min(input.verificationPictureCount, input.requiredVerificationPictureCount);
  const verification: Verification = {
    completedTaskCount: input.completedTaskIds.length + photos,
    totalTaskCount: input.totalTaskCount,
    verificationPictureCount: input.verificationPictureCount,
    requiredVerificationPictureCount: input.requiredVerificationPictureCount,
    problemCount: input.problems.length,
  };
  if (input.problems.length > 0) {
    verification.problems = input.problems.map((p) => ({
      severity: p.severity,
      status: p.status,
      step: p.step,
      checklist: p.checklist,
      reportedAt: p.reportedAt,
    }));
  }
  if (input.startDistanceMeters !== null) verification.startDistanceMeters = input.startDistanceMeters;
  if (input.endDistanceMeters !== null) verification.endDistanceMeters = input.endDistanceMeters;
  return verification;
}

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** The read shape's location: [longitude, latitude] (GeoJSON order), entries null when unknown. */
export function locationPair(point: { latitude: number | null; longitude: number | null }): [number | null, number | null] {
  return [point.longitude, point.latitude];
}

const EARTH_RADIUS_METERS = 6_371_008.8;

/** Great-circle (haversine) distance in whole meters. */
export function distanceMeters(a: Coordinates, b: Coordinates): number {
  const rad = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h))));
}

/** The distance from the property to where the cleaner reported from, or null when no position was sent. */
export function distanceFromProperty(property: { latitude: number | null; longitude: number | null }, at?: Coordinates): number | null {
  if (!at || property.latitude === null || property.longitude === null) return null;
  return distanceMeters({ latitude: property.latitude, longitude: property.longitude }, at);
}
