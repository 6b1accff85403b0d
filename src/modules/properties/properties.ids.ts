import { idKinds } from '../../platform/ids/ids';

/** The ids this module mints (declared to the house in properties.declaration.ts). */
export const PROPERTY_IDS = idKinds({ property: 'prop', picture: 'pic' });
