import { Injectable, Logger } from '@nestjs/common';
import { PARTITIONS_AHEAD_MS } from '../../../../platform/database/partitions.rules';
import { EventsService } from '../../../events/events.service';
import { WebhookDeliveriesRepository } from '../../webhook-deliveries.repository';

/**
 * Keeps the weekly partitions of the event log, the deliveries and their keys ready four weeks ahead
 * (the migration made the first ones), so every row has its partition when it is written; the default
 * partitions only catch what a worker that stayed down for weeks did not prepare. Retention drops the
 * old ones (WebhookRetentionService).
 */
@Injectable()
export class PartitionUpkeepService {
  private readonly logger = new Logger(PartitionUpkeepService.name);

  constructor(
    private readonly events: EventsService,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  async run({ now = new Date() }: { now?: Date } = {}): Promise<string[]> {
    const until = new Date(now.getTime() + PARTITIONS_AHEAD_MS);
    const created = [...(await this.events.createPartitions(now, until)), ...(await this.deliveries.createPartitions(now, until))];
    if (created.length > 0) this.logger.log(`partition upkeep: created ${created.join(', ')}`);
    return created;
  }
}
