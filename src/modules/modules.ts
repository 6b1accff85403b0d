import type { Type } from '@nestjs/common';
import { assembleDeclarations, DeclaredModules } from '../platform/modules/module-declaration';
import { AUTH } from './auth/auth.declaration';
import { AuthModule } from './auth/auth.module';
import { BOOKINGS } from './bookings/bookings.declaration';
import { BookingsHttpModule } from './bookings/bookings-http.module';
import { CALENDAR_FEEDS } from './calendar-feeds/calendar-feeds.declaration';
import { CalendarFeedsHttpModule } from './calendar-feeds/calendar-feeds-http.module';
import { CalendarFeedsWorkerModule } from './calendar-feeds/calendar-feeds-worker.module';
import { CHECKLISTS } from './checklists/checklists.declaration';
import { ChecklistsHttpModule } from './checklists/checklists-http.module';
import { CONSOLE } from './console/console.declaration';
import { ConsoleHttpModule } from './console/console-http.module';
import { EVENTS } from './events/events.declaration';
import { EventsHttpModule } from './events/events-http.module';
import { EventsModule } from './events/events.module';
import { HEALTH } from './health/health.declaration';
import { HealthHttpModule } from './health/health-http.module';
import { JOB_REQUESTS } from './job-requests/job-requests.declaration';
import { JobRequestsHttpModule } from './job-requests/job-requests-http.module';
import { LEGACY } from './legacy/legacy.declaration';
import { LegacyHttpModule } from './legacy/legacy-http.module';
import { LegacyWorkerModule } from './legacy/legacy-worker.module';
import { PROPERTIES } from './properties/properties.declaration';
import { PropertiesHttpModule } from './properties/properties-http.module';
import { REMINDERS } from './reminders/reminders.declaration';
import { RemindersHttpModule } from './reminders/reminders-http.module';
import { RemindersWorkerModule } from './reminders/reminders-worker.module';
import { WEBHOOKS } from './webhooks/webhooks.declaration';
import { WebhooksHttpModule } from './webhooks/webhooks-http.module';
import { WebhooksWorkerModule } from './webhooks/webhooks-worker.module';

/** A module as the processes load it: its declaration, its Nest module in the API and in the worker (where it has one). */
interface Registration<D> {
  readonly declaration: D;
  readonly http?: Type;
  readonly worker?: Type;
}

/**
 * Every module, registered once (adding a resource adds its line here: see "How to add a resource" in
 * docs/architecture.md). Typed from the declarations themselves, so a module that declares itself and is
 * not listed fails the typecheck. The order is the routes' (and the document's tags'); the assembled
 * shapes and events follow it, module by module.
 */
export const MODULES: { readonly [M in keyof DeclaredModules]: Registration<DeclaredModules[M]> } = {
  auth: { declaration: AUTH, http: AuthModule },
  events: { declaration: EVENTS, http: EventsHttpModule, worker: EventsModule },
  health: { declaration: HEALTH, http: HealthHttpModule },
  properties: { declaration: PROPERTIES, http: PropertiesHttpModule },
  checklists: { declaration: CHECKLISTS, http: ChecklistsHttpModule },
  bookings: { declaration: BOOKINGS, http: BookingsHttpModule },
  jobRequests: { declaration: JOB_REQUESTS, http: JobRequestsHttpModule },
  reminders: { declaration: REMINDERS, http: RemindersHttpModule, worker: RemindersWorkerModule },
  webhooks: { declaration: WEBHOOKS, http: WebhooksHttpModule, worker: WebhooksWorkerModule },
  legacy: { declaration: LEGACY, http: LegacyHttpModule, worker: LegacyWorkerModule },
  calendarFeeds: { declaration: CALENDAR_FEEDS, http: CalendarFeedsHttpModule, worker: CalendarFeedsWorkerModule },
  // The account console's pages at /console (outside /v1; its own session, never an x-api-key).
  console: { declaration: CONSOLE, http: ConsoleHttpModule },
};

const registrations: ReadonlyArray<Registration<unknown>> = Object.values(MODULES);

/** The lists the house assembles from the declarations: ids, example ids, read shapes and their examples, events. */
export const DECLARED = assembleDeclarations(
  Object.fromEntries(Object.entries(MODULES).map(([name, { declaration }]) => [name, declaration])),
);

/** The Nest modules the API process loads (their controllers serve the routes), in registration order. */
export const HTTP_MODULES = registrations.flatMap(({ http }) => (http ? [http] : []));

/** The Nest modules the worker process loads (processors and schedules). */
export const WORKER_MODULES = registrations.flatMap(({ worker }) => (worker ? [worker] : []));
