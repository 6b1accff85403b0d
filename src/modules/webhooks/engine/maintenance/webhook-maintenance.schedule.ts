import { Injectable } from '@nestjs/common';
import { ScheduledTasks } from '../../../../platform/scheduling/scheduled-tasks';
import { PeriodicTask } from '../../../../platform/scheduling/scheduler';
import { PartitionUpkeepService } from './partition-upkeep.service';
import { WebhookRetentionService } from './webhook-retention.service';
import { WebhookSecretsService } from './webhook-secrets.service';
import { WebhookSweepService } from './webhook-sweep.service';
import { BrokerPasswordUpkeep } from './broker-password-upkeep';

export const SWEEP_TASK = 'webhook-sweep';
export const RETENTION_TASK = 'webhook-retention';
export const SECRETS_TASK = 'webhook-secrets';
export const PARTITIONS_TASK = 'partition-upkeep';

/**
 * The engine's periodic work (worker only): the dispatch/retry sweep, retention, the upkeep of the
 * time partitions and of stored secrets, on the in-process
 * scheduler (once per interval across all workers; an interval of 0 leaves the task out, as tests that
 * share one database with other files do, calling the services directly).
 */
@Injectable()
export class WebhookMaintenanceSchedule extends ScheduledTasks {
  constructor(
    private readonly sweeper: WebhookSweepService,
    private readonly retention: WebhookRetentionService,
    private readonly secrets: WebhookSecretsService,
    private readonly partitions: PartitionUpkeepService,
    private readonly brokerPasswords: BrokerPasswordUpkeep,
  ) {
    super();
  }

  protected tasks(): PeriodicTask[] {
    const { sweepIntervalMs, retentionIntervalMs } = this.config.webhook;
    return [
      { name: SWEEP_TASK, intervalMs: sweepIntervalMs, run: () => this.sweeper.sweep() },
      { name: RETENTION_TASK, intervalMs: retentionIntervalMs, run: (signal) => this.retention.run({ signal }) },
      // The event log's and the deliveries' time partitions, four weeks ahead (docs/operations.md).
      { name: PARTITIONS_TASK, intervalMs: retentionIntervalMs, run: () => this.partitions.run() },
      // Stored secrets' upkeep: previous secrets past their overlap, secrets (and RabbitMQ destinations'
      // broker passwords, issue 43) not sealed with the current key.
      {
        name: SECRETS_TASK,
        intervalMs: retentionIntervalMs,
        run: async (signal) => {
          await this.secrets.run({ signal });
          await this.brokerPasswords.run({ signal });
        },
      },
    ];
  }
}
