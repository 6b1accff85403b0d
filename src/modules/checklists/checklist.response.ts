import { ChecklistEntity } from './checklist.entity';

export interface TaskResponse {
  label: string;
  sourceTaskId: string | null;
  taskId: string;
}

export interface TaskGroupResponse {
  taskGroupId: string;
  title: string;
  sourceTaskGroupId: string | null;
  verificationRequired: boolean;
  /** Set on picture-only groups (whose tasks are then []), else null. */
  sourcePictureUrl: string | null;
  tasks: TaskResponse[];
}

/** The checklist read shape (spec 2.3 / 4.4): API responses and checklist.* event results. */
export interface ChecklistResponse {
  checklistId: string;
  propertyId: string;
  title: string;
  description: string | null;
  disabled: boolean;
  disabledAt: string | null;
  taskGroups: TaskGroupResponse[];
  createdAt: string;
  updatedAt: string;
}

export function toChecklistResponse(checklist: ChecklistEntity): ChecklistResponse {
  return {
    checklistId: checklist.id,
    propertyId: checklist.propertyId,
    title: checklist.title,
    description: checklist.description,
    disabled: checklist.disabledAt !== null,
    disabledAt: checklist.disabledAt ? checklist.disabledAt.toISOString() : null,
    // Listed field by field so a stored document never leaks a field the read shape does not promise.
    taskGroups: checklist.taskGroups.map((group) => ({
      taskGroupId: group.taskGroupId,
      title: group.title,
      sourceTaskGroupId: group.sourceTaskGroupId,
      verificationRequired: group.verificationRequired,
      sourcePictureUrl: group.sourcePictureUrl,
      tasks: group.tasks.map((task) => ({ label: task.label, sourceTaskId: task.sourceTaskId, taskId: task.taskId })),
    })),
    createdAt: checklist.createdAt.toISOString(),
    updatedAt: checklist.updatedAt.toISOString(),
  };
}
