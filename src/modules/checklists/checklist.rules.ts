import { FieldIssue, InvalidStateError, ValidationError } from '../../platform/errors/domain-error';
import { newId } from '../../platform/ids/ids';
import type { StoredTask, StoredTaskGroup } from './checklist.entity';
import { CHECKLIST_IDS } from './checklists.ids';

/** Limits where the spec is silent (decided here, documented in docs/checklists.md). */
export const CHECKLIST_LIMITS = {
  titleMax: 200,
  descriptionMax: 5000,
  taskGroupsMax: 100,
  tasksPerGroupMax: 200,
  groupTitleMax: 200,
  sourceIdMin: 3,
  sourceIdMax: 100,
  labelMin: 3,
  labelMax: 500,
} as const;

export const BOTH_PICTURE_AND_TASKS = 'The sourcePictureUrl field can only be set if the field tasks is not provided.';

export interface TaskInput {
  label: string;
  sourceTaskId?: string | null;
}

export interface TaskGroupInput {
  title: string;
  sourceTaskGroupId?: string | null;
  verificationRequired?: boolean | null;
  sourcePictureUrl?: string | null;
  tasks?: TaskInput[] | null;
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Spec 2.3: a group carries exactly one of sourcePictureUrl (a picture-only step)
 * or tasks. Both → the spec's own message; neither → ours. Returns one issue per
 * offending group so a client sees them all at once.
 */
export function taskGroupShapeIssues(groups: TaskGroupInput[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  groups.forEach((group, i) => {
    const hasPicture = present(group.sourcePictureUrl);
    const hasTasks = present(group.tasks);
    if (hasPicture && hasTasks) {
      issues.push({ pointer: `#/taskGroups/${i}/sourcePictureUrl`, detail: BOTH_PICTURE_AND_TASKS });
    } else if (!hasPicture && !hasTasks) {
      issues.push({
        pointer: `#/taskGroups/${i}/tasks`,
        detail: `taskGroups[${i}] must carry either tasks or sourcePictureUrl`,
      });
    }
  });
  return issues;
}

/** Throws the 400 for taskGroupShapeIssues; the detail is the message itself when all issues share it. */
export function assertTaskGroupShapes(groups: TaskGroupInput[]): void {
  const issues = taskGroupShapeIssues(groups);
  if (issues.length === 0) return;
  const details = [...new Set(issues.map((issue) => issue.detail))];
  throw new ValidationError(details.join('; '), issues);
}

/** Mints a fresh taskGroupId per group and taskId per task: used on create and on every structure replacement. */
export function mintTaskGroups(
  groups: TaskGroupInput[],
  mint = (kind: 'taskGroup' | 'task') => newId(CHECKLIST_IDS[kind]),
): StoredTaskGroup[] {
  return groups.map((group) => ({
    taskGroupId: mint('taskGroup'),
    title: group.title,
    sourceTaskGroupId: group.sourceTaskGroupId ?? null,
    verificationRequired: group.verificationRequired ?? false,
    sourcePictureUrl: group.sourcePictureUrl ?? null,
    tasks: (group.tasks ?? []).map((task): StoredTask => ({
      taskId: mint('task'),
      label: task.label,
      sourceTaskId: task.sourceTaskId ?? null,
    })),
  }));
}

/** Disabled checklists are frozen: they stay listed (jobs may hold their taskIds) but take no more changes. */
export function assertUpdatable(checklist: { id: string; disabledAt: Date | null }): void {
  if (checklist.disabledAt) {
    throw new InvalidStateError(`Checklist ${checklist.id} is disabled and can no longer be updated`, { checklistId: checklist.id });
  }
}

/** What a job (or reminder) keeps of a checklist: a deep copy, unaffected by later edits or deletion. */
export interface ChecklistSnapshot {
  checklistId: string;
  propertyId: string;
  title: string;
  description: string | null;
  taskGroups: StoredTaskGroup[];
}

export interface SnapshotSource {
  id: string;
  propertyId: string;
  title: string;
  description: string | null;
  taskGroups: StoredTaskGroup[];
  disabledAt: Date | null;
}

/**
 * Turns the requested ids and the account's rows that matched them into snapshots,
 * in request order. A duplicate or unknown id (another account's included) is a
 * 400 naming each offender at `pointerOf(index)`; a disabled checklist is a 409.
 */
export function buildSnapshots(
  requestedIds: string[],
  rows: SnapshotSource[],
  pointerOf: (index: number) => string = (i) => `#/checklists/${i}/checklistId`,
): ChecklistSnapshot[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  requestedIds.forEach((id, i) => {
    if (seen.has(id)) issues.push({ pointer: pointerOf(i), detail: `Checklist ${id} is listed more than once` });
    else if (!byId.has(id)) issues.push({ pointer: pointerOf(i), detail: `Checklist ${id} was not found` });
    seen.add(id);
  });
  if (issues.length > 0) throw new ValidationError(issues.map((issue) => issue.detail).join('; '), issues);

  const disabled = requestedIds.filter((id) => byId.get(id)!.disabledAt);
  if (disabled.length > 0) {
    throw new InvalidStateError(`Disabled checklists cannot be attached to new jobs: ${disabled.join(', ')}`, { checklistIds: disabled });
  }
  return requestedIds.map((id) => {
    const row = byId.get(id)!;
    return {
      checklistId: row.id,
      propertyId: row.propertyId,
      title: row.title,
      description: row.description,
      taskGroups: structuredClone(row.taskGroups),
    };
  });
}
