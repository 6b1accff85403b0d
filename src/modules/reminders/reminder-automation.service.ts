import { Injectable } from '@nestjs/common';
import { Tx } from '../../platform/database/unit-of-work';
import { newId } from '../../platform/ids/ids';
import { EventsService } from '../events/events.service';
import { ReminderEntity } from './reminder.entity';
import { ReminderQueue } from './reminder-queue.service';
import { ReminderResponse, toReminderResponse } from './reminder.response';
import { AutomationBooking, automaticReminderFor } from './reminder.rules';
import { RemindersRepository } from './reminders.repository';
import type { EventsCarrying } from '../events/event-catalogue';
import { REMINDER_IDS } from './reminders.ids';

/**
 * The scheduling automation's side in reminders (spec 1), called by BookingsService inside the
 * booking's transaction: a booking's turnover reminder at check-out is created with the booking,
 * moved with its dates, removed when it is cancelled or deleted. Also removes a deleted property's
 * reminders, from the bookings' deletion hook, so that every transaction locks a property's bookings
 * before its reminders (docs/reminders.md).
 */
@Injectable()
export class ReminderAutomation {
  constructor(
    private readonly repository: RemindersRepository,
    private readonly events: EventsService,
    private readonly queue: ReminderQueue,
  ) {}

  /** A new booking's turnover reminder (the caller skips this when the property disables the automation). */
  async createForBooking(tx: Tx, booking: AutomationBooking): Promise<ReminderResponse> {
    const reminder = await this.repository.insert(tx.manager, {
      id: newId(REMINDER_IDS.reminder),
      accountId: tx.ctx.accountId,
      ...automaticReminderFor(booking),
    });
    this.queue.armAfterCommit(tx, reminder);
    return this.publish(tx, 'reminder.create', reminder);
  }

  /** The booking's dates changed: its turnover reminder (if it still has one) moves to the new check-out. */
  async moveForBooking(tx: Tx, booking: AutomationBooking): Promise<void> {
    const reminder = await this.repository.lockAutomatic(tx.manager, tx.ctx.accountId, booking.sourceBookingId);
    if (!reminder || reminder.date.getTime() === booking.endDate.getTime()) return;
    const moved = await this.repository.reschedule(tx.manager, tx.ctx.accountId, reminder.id, booking.endDate);
    // A job for the new date; the old date's job, if it is still waiting, will find nothing due.
    this.queue.armAfterCommit(tx, moved);
    await this.publish(tx, 'reminder.update', moved);
  }

  /** The booking was cancelled or deleted: its turnover reminder (if it still has one) goes. */
  async removeForBooking(tx: Tx, booking: Pick<AutomationBooking, 'sourceBookingId'>): Promise<void> {
    const reminder = await this.repository.lockAutomatic(tx.manager, tx.ctx.accountId, booking.sourceBookingId);
    if (!reminder) return;
    await this.repository.delete(tx.manager, tx.ctx.accountId, reminder.id);
    await this.publish(tx, 'reminder.delete', reminder);
  }

  /** The property is being deleted (after its bookings): every reminder of it goes, one reminder.delete each. */
  async deleteForProperty(tx: Tx, propertyId: string): Promise<void> {
    const deleted = await this.repository.deleteByProperty(tx.manager, tx.ctx.accountId, propertyId);
    for (const reminder of deleted) await this.publish(tx, 'reminder.delete', reminder);
  }

  private async publish(tx: Tx, eventName: EventsCarrying<ReminderResponse>, reminder: ReminderEntity): Promise<ReminderResponse> {
    const shape = toReminderResponse(reminder);
    await this.events.publish(tx, eventName, [shape]);
    return shape;
  }
}
