import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in checklists.declaration.ts). */
export const CHECKLIST_IDS = idKinds({ checklist: 'chk', taskGroup: 'tgrp', task: 'task' });
