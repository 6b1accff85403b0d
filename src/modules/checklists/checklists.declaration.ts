import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { CHECKLIST_SHAPE } from './checklist.response';
import { CHECKLIST_IDS } from './checklists.ids';
import { PROPERTY_EXAMPLES } from '../properties/properties.declaration';

const exampleIds = {
  checklistId: 'chk_01JDZK5T4V7W8X9Y0Z1A2B3C4D',
  taskGroupId: 'tgrp_01JDZK5V4W5X6Y7Z8A9B0C1D2E',
  taskId: 'task_01JDZK5W5X6Y7Z8A9B0C1D2E3F',
};

/** The example requests' values (the route docs' examples). */
export const CHECKLIST_EXAMPLES = {
  ...exampleIds,
  checklistBody: {
    title: 'Turnover clean',
    propertyId: PROPERTY_EXAMPLES.propertyId,
    description: 'After every stay',
    taskGroups: [
      {
        title: 'Kitchen',
        verificationRequired: true,
        tasks: [{ label: 'Empty the dishwasher', sourceTaskId: 'kit-1' }, { label: 'Wipe the counters' }],
      },
    ],
  },
};

export const CHECKLISTS = declareModule({
  ids: CHECKLIST_IDS,
  tenantTables: [{ table: 'checklists' }],
  exampleIds,
  shapes: [CHECKLIST_SHAPE],
  examples: {
    Checklist: {
      checklistId: exampleIds.checklistId,
      propertyId: PROPERTY_EXAMPLES.propertyId,
      title: 'Turnover clean',
      description: 'After every stay',
      disabled: false,
      disabledAt: null,
      taskGroups: [
        {
          taskGroupId: exampleIds.taskGroupId,
          title: 'Kitchen',
          sourceTaskGroupId: null,
          verificationRequired: true,
          sourcePictureUrl: null,
          tasks: [{ label: 'Empty the dishwasher', sourceTaskId: 'kit-1', taskId: exampleIds.taskId }],
        },
      ],
      createdAt: at,
      updatedAt: at,
    },
  },
  events: {
    'checklist.create': {
      payload: CHECKLIST_SHAPE,
      when: '`POST /v1/checklists` succeeded',
      results: '`[checklist]`: the created checklist, as in the 201 response',
    },
    'checklist.update': {
      payload: CHECKLIST_SHAPE,
      when: '`PATCH /v1/checklists/{checklistId}` with at least one field',
      results: '`[checklist]`: the checklist after the update (with re-minted ids when `taskGroups` was sent)',
    },
    'checklist.disable': {
      payload: CHECKLIST_SHAPE,
      when: '`POST /v1/checklists/{checklistId}/disable` on an enabled checklist',
      results: '`[checklist]`: with `disabled: true` and `disabledAt`',
    },
    'checklist.delete': {
      payload: CHECKLIST_SHAPE,
      when: "its property was deleted (`DELETE /v1/properties/{propertyId}`); one event per checklist, in the property delete's transaction",
      results: '`[checklist]`: the checklist as it was just before deletion',
    },
  },
  tags: { Checklists: 'Checklists of tasks, with server-minted task ids.' },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    checklists: typeof CHECKLISTS;
  }
}
