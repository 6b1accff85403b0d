import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import { DynamicModule, Module } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CalendarSyncQueueModule } from '../modules/calendar-feeds/calendar-sync-queue.module';
import { CALENDAR_SYNC_QUEUE } from '../modules/calendar-feeds/calendar-sync-queue.service';
import { ReminderQueueModule } from '../modules/reminders/reminder-queue.module';
import { REMINDER_DUE_QUEUE } from '../modules/reminders/reminder-queue.service';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_DISPATCH_QUEUE } from '../modules/webhooks/webhook-queue.service';
import { WebhookQueueModule } from '../modules/webhooks/webhook-queue.module';

export const QUEUE_DASHBOARD_ROUTE = '/admin/queues';

/** HTTP basic auth in constant time; 401 with a challenge otherwise. */
export function basicAuth(user: string, password: string) {
  const wanted = Buffer.from(`Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`);
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length === wanted.length && timingSafeEqual(given, wanted)) return next();
    res.writeHead(401, { 'www-authenticate': 'Basic realm="queues", charset="UTF-8"', 'content-type': 'text/plain' }).end('Unauthorized\n');
  };
}

/**
 * Bull Board (the BullMQ dashboard) at /admin/queues behind basic auth, API process only; mounted
 * only when ADMIN_USER and ADMIN_PASSWORD are set (docs/operations.md, "Queue dashboard").
 */
@Module({})
export class QueueDashboardModule {
  static forRoot(admin: { user: string; password: string }): DynamicModule {
    return {
      module: QueueDashboardModule,
      imports: [
        WebhookQueueModule,
        ReminderQueueModule,
        CalendarSyncQueueModule,
        BullBoardModule.forRoot({
          route: QUEUE_DASHBOARD_ROUTE,
          adapter: ExpressAdapter,
          middleware: basicAuth(admin.user, admin.password),
          boardOptions: { uiConfig: { boardTitle: 'Property Ops queues' } },
        }),
        BullBoardModule.forFeature(
          { name: WEBHOOK_DISPATCH_QUEUE, adapter: BullMQAdapter },
          { name: WEBHOOK_DELIVERY_QUEUE, adapter: BullMQAdapter },
          { name: REMINDER_DUE_QUEUE, adapter: BullMQAdapter },
          { name: CALENDAR_SYNC_QUEUE, adapter: BullMQAdapter },
        ),
      ],
    };
  }
}
