import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { PropertiesModule } from '../properties/properties.module';
import { RemindersModule } from '../reminders/reminders.module';
import { BookingEntity } from './booking.entity';
import { BookingsRepository } from './bookings.repository';
import { BookingsService } from './bookings.service';

@Module({
  imports: [TypeOrmModule.forFeature([BookingEntity]), EventsModule, PropertiesModule, RemindersModule],
  providers: [BookingsService, BookingsRepository],
  // BookingsService.findBySourceBookingId is what job requests use (partnerBookingId).
  exports: [BookingsService],
})
export class BookingsModule {}
