import { Module } from '@nestjs/common';
import { RemindersModule } from './reminders.module';
import { RemindersController } from './reminders.controller';

/** The HTTP side of reminders: its controllers over the core module's services. Only the app module imports it; workers import RemindersModule. */
@Module({ imports: [RemindersModule], controllers: [RemindersController] })
export class RemindersHttpModule {}
