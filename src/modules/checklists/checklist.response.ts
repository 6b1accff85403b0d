import { arrayOf, bool, dateTime, id, orNull, shapeOf, str } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { ChecklistEntity } from './checklist.entity';
import { CHECKLIST_IDS } from './checklists.ids';
import { PROPERTY_IDS } from '../properties/properties.ids';

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

export const CHECKLIST_SHAPE = readShape<ChecklistResponse>(
  'Checklist',
  'A checklist (spec 2.3) with its server-minted taskGroupId and taskId values.',
  {
    checklistId: id(CHECKLIST_IDS.checklist),
    propertyId: id(PROPERTY_IDS.property),
    title: str,
    description: orNull(str),
    disabled: bool,
    disabledAt: orNull(dateTime),
    taskGroups: arrayOf(
      shapeOf<TaskGroupResponse>('A step of the checklist: tasks, or one illustration picture (create only).', {
        taskGroupId: id(CHECKLIST_IDS.taskGroup),
        title: str,
        sourceTaskGroupId: orNull(str),
        verificationRequired: bool,
        sourcePictureUrl: orNull(str),
        tasks: arrayOf(shapeOf<TaskResponse>('A task.', { label: str, sourceTaskId: orNull(str), taskId: id(CHECKLIST_IDS.task) })),
      }),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
