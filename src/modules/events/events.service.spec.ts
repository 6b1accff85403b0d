import type { Tx } from '../../platform/database/unit-of-work';
import type { BookingResponse } from '../bookings/booking.response';
import type { ReminderResponse } from '../reminders/reminder.response';
import { EventEntity } from './event.entity';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** A transaction whose after-commit tasks the test runs itself. */
function fakeTx(): Tx & { commit(): Promise<void> } {
  const tasks: Array<() => unknown> = [];
  return {
    manager: {} as Tx['manager'],
    ctx: { accountId: 'acct_1', requestId: 'req_1', clientRequestId: 'cli_1' },
    afterCommit: (task) => tasks.push(task),
    respond: async (response) => response,
    commit: async () => {
      for (const task of tasks) await task();
    },
  };
}

/** The service does not look into results: any value of the event's type will do. */
const booking = {} as BookingResponse;
const reminder = {} as ReminderResponse;

describe('EventsService.publish', () => {
  const repository = {
    insert: async (_manager: unknown, event: Omit<EventEntity, 'createdAt' | 'dispatchedAt'>) =>
      Object.assign(new EventEntity(), event, { createdAt: new Date(), dispatchedAt: null }),
  } as unknown as EventsRepository;

  it('hands a transaction’s events to the listeners together, once, after commit', async () => {
    const events = new EventsService(repository);
    const heard: string[][] = [];
    events.onCommitted((batch) => void heard.push(batch.map((e) => e.eventName)));
    const tx = fakeTx();
    await events.publish(tx, 'booking.create', [booking]);
    await events.publish(tx, 'reminder.create', [reminder]);
    expect(heard).toEqual([]);
    await tx.commit();
    expect(heard).toEqual([['booking.create', 'reminder.create']]);
    const other = fakeTx();
    await events.publish(other, 'booking.delete', [booking]);
    await other.commit();
    expect(heard).toEqual([['booking.create', 'reminder.create'], ['booking.delete']]);
  });

  it('registers nothing after commit when nobody listens', async () => {
    const tx = fakeTx();
    const afterCommit = jest.spyOn(tx, 'afterCommit');
    await new EventsService(repository).publish(tx, 'booking.create', [booking]);
    expect(afterCommit).not.toHaveBeenCalled();
  });

  it('takes only catalogued names, each with its results type (npm run typecheck fails otherwise)', async () => {
    const events = new EventsService(repository);
    const tx = fakeTx();
    // @ts-expect-error a name outside the catalogue (event-catalogue.ts)
    await events.publish(tx, 'booking.created', [booking]);
    // @ts-expect-error a reminder as the results of a booking event
    await events.publish(tx, 'booking.create', [reminder]);
    await expect(events.publish(tx, 'reminder.due', [reminder])).resolves.toMatchObject({ eventName: 'reminder.due' });
  });
});
