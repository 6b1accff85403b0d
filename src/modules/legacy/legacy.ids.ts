import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in legacy.declaration.ts). */
export const LEGACY_IDS = idKinds({ legacyBatch: 'lbat' });
