import type { PropertyResponse } from '../../src/modules/properties/property.response';
import { ApiClient } from './app';

/** Property fixtures for end-to-end tests (properties, pictures and every module that needs a property). */

let seq = 0;
/** Unique per test process and run: a base-36 time plus a counter. */
export const uniq = () => `${Date.now().toString(36)}-${++seq}`;

const freshProperty = () => ({
  sourceId: `src-${uniq()}`,
  name: 'Sea view flat',
  countryCode: 'FR',
  timeZone: 'Europe/Paris',
  location: { latitude: 48.8566, longitude: 2.3522 },
  beds: 2,
  bedrooms: 1,
  bathrooms: 1,
});

/** A valid POST /v1/properties body with a fresh sourceId (its fields typed, so the SDK's typed client takes it). */
export function validProperty(overrides: Record<string, unknown> = {}): ReturnType<typeof freshProperty> & Record<string, any> {
  return { ...freshProperty(), ...overrides };
}

/** Creates a property from validProperty(overrides) and returns its read shape. */
export async function createProperty(api: ApiClient, overrides: Record<string, unknown> = {}): Promise<PropertyResponse> {
  const res = await api.post('/v1/properties').send(validProperty(overrides)).expect(201);
  return res.body;
}

export const pointersOf = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer).sort();
