import { Module } from '@nestjs/common';
import { ChecklistsModule } from './checklists.module';
import { ChecklistsController } from './checklists.controller';

/** The HTTP side of checklists: its controllers over the core module's services. Only the app module imports it; workers import ChecklistsModule. */
@Module({ imports: [ChecklistsModule], controllers: [ChecklistsController] })
export class ChecklistsHttpModule {}
