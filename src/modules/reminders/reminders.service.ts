import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { foundById } from '../../platform/ids/found-by-id';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { newId } from '../../platform/ids/ids';
import { CursorCodec, dateIdKeyOf } from '../../platform/pagination/cursor';
import { dateWindowOf } from '../../platform/pagination/date-window';
import { Page, toPage } from '../../platform/pagination/page';
import { parseDateTime } from '../../platform/http/validators';
import { ChecklistsService } from '../checklists/checklists.service';
import { EventsService } from '../events/events.service';
import { PropertyResolver } from '../properties/property-resolver.service';
import { CreateReminderDto } from './dto/create-reminder.dto';
import { ListRemindersQueryDto } from './dto/list-reminders.dto';
import { ReminderEntity } from './reminder.entity';
import { ReminderQueue } from './reminder-queue.service';
import { ReminderResponse, toReminderResponse } from './reminder.response';
import { assertChecklistsOfProperty, storedJobRequestSettings } from './reminder.rules';
import { ReminderListFilter, RemindersRepository } from './reminders.repository';
import type { EventsCarrying } from '../events/event-catalogue';
import { REMINDER_IDS } from './reminders.ids';

/**
 * Reminder use cases (spec 2.5, 4.6): create, get, list, delete, each write one transaction with its
 * event. The automation's reminders (ReminderAutomation) are ordinary reminders flagged automatic.
 */
@Injectable()
export class RemindersService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: RemindersRepository,
    private readonly resolver: PropertyResolver,
    private readonly checklists: ChecklistsService,
    private readonly events: EventsService,
    private readonly cursors: CursorCodec,
    private readonly queue: ReminderQueue,
  ) {}

  async create(ctx: RequestContext, dto: CreateReminderDto): Promise<ReminderResponse> {
    const date = parseDateTime(dto.date) as Date;
    const jobRequestSettings = dto.jobRequestSettings ? storedJobRequestSettings(dto.jobRequestSettings) : null;
    const checklistIds = (dto.checklists ?? []).map((item) => item.checklistId);
    return this.uow.run(ctx, async (tx) => {
      const property = await this.resolver.resolve(tx, dto);
      // Checklists of the account (unknown ids: 400; disabled: 409), held FOR SHARE until commit, on this property.
      const snapshots = await this.checklists.snapshotForJob(tx, checklistIds);
      assertChecklistsOfProperty(property.propertyId, snapshots);
      const reminder = await this.repository.insert(tx.manager, {
        id: newId(REMINDER_IDS.reminder),
        accountId: ctx.accountId,
        propertyId: property.propertyId,
        title: dto.title,
        date,
        sourceBookingId: dto.sourceBookingId ?? null,
        sourceId: dto.sourceId ?? null,
        actionable: dto.actionable ?? false,
        checklistIds,
        jobRequestSettings,
        automatic: false,
      });
      this.queue.armAfterCommit(tx, reminder);
      return this.publish(tx, 'reminder.create', reminder);
    });
  }

  async get(accountId: string, reminderId: string): Promise<ReminderResponse> {
    const reminder = await foundById(REMINDER_IDS.reminder, reminderId, 'Reminder', () =>
      this.repository.findOne(this.repository.manager, accountId, reminderId),
    );
    return toReminderResponse(reminder);
  }

  /** Reminders dated in [dateFrom, dateTo), by date then id; the cursor is bound to the query like the bookings list's. */
  async list(accountId: string, query: ListRemindersQueryDto): Promise<Page<ReminderResponse>> {
    const window = dateWindowOf(query.dateFrom, query.dateTo);
    const filter: ReminderListFilter = { window, propertyId: query.propertyId };
    const scope = ['reminders', window.from.toISOString(), window.to.toISOString(), query.propertyId ?? ''].join('\n');
    if (query.cursor !== undefined) {
      const { at, id } = dateIdKeyOf(this.cursors.decode(scope, query.cursor));
      filter.after = { date: at, id };
    }
    const rows = await this.repository.listPage(accountId, filter, query.limit + 1);
    return toPage(rows, query.limit, toReminderResponse, (row) => this.cursors.encode(scope, [row.date.toISOString(), row.id]));
  }

  async delete(ctx: RequestContext, reminderId: string): Promise<void> {
    await this.uow.run(ctx, async (tx) => {
      const reminder = await foundById(REMINDER_IDS.reminder, reminderId, 'Reminder', () =>
        this.repository.findOne(tx.manager, ctx.accountId, reminderId, 'update'),
      );
      await this.repository.delete(tx.manager, ctx.accountId, reminder.id);
      await this.publish(tx, 'reminder.delete', reminder);
    });
  }

  private async publish(tx: Tx, eventName: EventsCarrying<ReminderResponse>, reminder: ReminderEntity): Promise<ReminderResponse> {
    const shape = toReminderResponse(reminder);
    await this.events.publish(tx, eventName, [shape]);
    return shape;
  }
}
