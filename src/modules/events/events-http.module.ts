import { Module } from '@nestjs/common';
import { EventsModule } from './events.module';
import { EventsController } from './events.controller';

/** The HTTP side of the event log: its controllers over the core module's services. Only the app module imports it; workers import EventsModule. */
@Module({ imports: [EventsModule], controllers: [EventsController] })
export class EventsHttpModule {}
