import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in console.declaration.ts). */
export const CONSOLE_IDS = idKinds({ consoleLink: 'clnk', consoleSession: 'cses' });
