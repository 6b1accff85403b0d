import type { PropertyDetails } from './property.entity';

/** Limits of the property write shape: the spec's (2.1, 8) plus the ones we chose where it is silent. */
export const PROPERTY_LIMITS = {
  sourceId: { min: 5, max: 100 },
  name: { min: 3, max: 100 },
  type: 100,
  /** beds, bedrooms, bathrooms: integers 0-1000 (our choice). */
  roomCount: 1000,
  bedDetails: 50,
  displayLabel: 100,
  bedQuantity: 100,
  detailText: 5000,
  otherAttributes: 100,
  attributeLabel: 100,
  attributeValue: 500,
  attributeValueItems: 50,
  attributeGroup: 100,
  attributePictures: 20,
} as const;

export const BED_TYPES = ['super-king', 'king', 'queen', 'twin', 'double', 'sofabed', 'child'] as const;

/** details as sent: the stored part plus the write-only flag; null for a key means "remove it". */
export type DetailsInput = { [K in keyof PropertyDetails]?: PropertyDetails[K] | null } & {
  disableRemindersAutomation?: boolean | null;
};

/**
 * Applies a details write to the stored details. Create starts from nothing; update
 * merges shallowly, so a client that echoes back the (flag-less) details it read never
 * resets disableRemindersAutomation. Keys sent as null are removed; the flag only
 * changes when sent (null resets it to its default, false).
 */
export function applyDetails(
  current: { details: PropertyDetails | null; disableRemindersAutomation: boolean },
  input: DetailsInput | null | undefined,
): { details: PropertyDetails | null; disableRemindersAutomation: boolean } {
  if (input === undefined) return current;
  if (input === null) return { details: null, disableRemindersAutomation: current.disableRemindersAutomation };
  const { disableRemindersAutomation, ...written } = input;
  const merged: Record<string, unknown> = { ...(current.details ?? {}) };
  for (const [key, value] of Object.entries(written)) {
    // DTO instances carry every declared key; undefined means "not sent", null means "remove".
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return {
    details: Object.keys(merged).length > 0 ? (merged as PropertyDetails) : null,
    disableRemindersAutomation:
      disableRemindersAutomation === undefined ? current.disableRemindersAutomation : (disableRemindersAutomation ?? false),
  };
}

/** Coordinates as the API returns them and the address text shows them. */
export function formatCoordinates(latitude: number, longitude: number): string {
  const lat = `${Math.abs(latitude).toFixed(4)}° ${latitude < 0 ? 'S' : 'N'}`;
  const lon = `${Math.abs(longitude).toFixed(4)}° ${longitude < 0 ? 'W' : 'E'}`;
  return `${lat}, ${lon}`;
}
