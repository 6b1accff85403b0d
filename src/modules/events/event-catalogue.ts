import type { DeclaredModules } from '../../platform/modules/module-declaration';
import type { ReadShape } from '../../platform/openapi/read-shape';

/**
 * Every event the service publishes, as the modules declare them (`events` in each
 * `<module>.declaration.ts`, in docs/events.md order): the names `EventsService.publish` accepts and
 * the type of each one's `results` entries come from there, as do the OpenAPI document's `webhooks`,
 * the events feed's schemas and docs/events.md's tables (`npm run docs:events`).
 */
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (all: infer I) => void ? I : never;
type DeclaredEvents = UnionToIntersection<
  { [M in keyof DeclaredModules]: DeclaredModules[M] extends { events: infer E } ? E : never }[keyof DeclaredModules]
>;

export type EventName = Extract<keyof DeclaredEvents, string>;

/** Each event's `results` entry type: `EventCatalogue['property.create']` is PropertyResponse. */
export type EventCatalogue = {
  [N in EventName]: DeclaredEvents[N] extends { payload: ReadShape<infer T> } ? T : never;
};

/** The events whose `results` entries are exactly T (a helper that publishes one resource's events takes these). */
export type EventsCarrying<T> = {
  [N in EventName]: [EventCatalogue[N]] extends [T] ? ([T] extends [EventCatalogue[N]] ? N : never) : never;
}[EventName];
