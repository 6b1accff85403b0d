import { Module } from '@nestjs/common';
import { WebhooksModule } from './webhooks.module';
import { WebhooksController } from './subscriptions/webhooks.controller';
import { WebhookReplaysController } from './replay/webhook-replays.controller';

/** The HTTP side of webhook subscriptions and replays: its controllers over the core module's services. Only the app module imports it; workers import WebhooksModule (delivery runs in WebhooksWorkerModule). */
@Module({ imports: [WebhooksModule], controllers: [WebhooksController, WebhookReplaysController] })
export class WebhooksHttpModule {}
