import { WebhookReplayEntity } from '../webhook-replay.entity';

/** A replay and its progress (issue 13, an extension of the spec). */
export interface WebhookReplayResponse {
  id: string;
  webhookId: string;
  status: WebhookReplayEntity['status'];
  since: string;
  until: string;
  eventFilters: string[];
  onlyFailed: boolean;
  /** Deliveries the window had to emit when the replay started. */
  total: number;
  /** Deliveries emitted so far (each once, in event order). */
  done: number;
  /** Of those, how many have ended failed_permanent so far. */
  failed: number;
  /** Of those, how many have been delivered so far. */
  delivered: number;
  /** Events passed over when reached (their delivery was pending, or delivered while onlyFailed). */
  skipped: number;
  createdAt: string;
  finishedAt: string | null;
}

export interface ReplayDryRunResponse {
  dryRun: true;
  /** Deliveries the replay would emit now. */
  total: number;
}

export function toWebhookReplayResponse(row: WebhookReplayEntity, outcomes: { delivered: number; failed: number }): WebhookReplayResponse {
  return {
    id: row.id,
    webhookId: row.subscriptionId,
    status: row.status,
    since: row.since.toISOString(),
    until: row.until.toISOString(),
    eventFilters: row.eventFilters,
    onlyFailed: row.onlyFailed,
    total: row.total,
    done: row.done,
    failed: outcomes.failed,
    delivered: outcomes.delivered,
    skipped: row.skipped,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
  };
}
