import { Module } from '@nestjs/common';
import { BookingsModule } from './bookings.module';
import { BookingsController } from './bookings.controller';

/** The HTTP side of bookings: its controllers over the core module's services. Only the app module imports it; workers import BookingsModule. */
@Module({ imports: [BookingsModule], controllers: [BookingsController] })
export class BookingsHttpModule {}
