import { arrayOf, bool, dateTime, described, enumOf, everyMember, id, int, orNull, ref, str } from '../../../platform/openapi/json-schema';
import { readShape, readShapeSchema } from '../../../platform/openapi/read-shape';
import { ReplayStatus, WebhookReplayEntity } from '../webhook-replay.entity';
import { WEBHOOK_IDS } from '../webhooks.ids';

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

export const WEBHOOK_REPLAY_SHAPE = readShape<WebhookReplayResponse>(
  'WebhookReplay',
  'Extension: a replay of the event log to a subscription, and its progress.',
  {
    id: id(WEBHOOK_IDS.replay),
    webhookId: id(WEBHOOK_IDS.subscription),
    status: enumOf(
      everyMember<ReplayStatus>({ running: true, completed: true, stopped: true }),
      'stopped: the subscription was disabled meanwhile',
    ),
    since: dateTime,
    until: dateTime,
    eventFilters: arrayOf(str),
    onlyFailed: bool,
    total: described(int, 'deliveries to emit, counted when the replay started'),
    done: described(int, 'deliveries emitted so far, each once, in event order'),
    failed: described(int, 'of those, ended failed_permanent so far'),
    delivered: described(int, 'of those, delivered so far'),
    skipped: described(int, 'events passed over when reached (delivery already pending, or delivered with onlyFailed)'),
    createdAt: dateTime,
    finishedAt: orNull(dateTime),
  },
);

export const REPLAY_DRY_RUN_SHAPE = readShape<ReplayDryRunResponse>(
  'ReplayDryRun',
  'Extension: what a replay would emit now; nothing was started.',
  { dryRun: { const: true }, total: int },
);

export const WEBHOOK_REPLAY_STARTED_SHAPE = readShapeSchema<WebhookReplayResponse | ReplayDryRunResponse>('WebhookReplayStarted', {
  oneOf: [ref(WEBHOOK_REPLAY_SHAPE.name), ref(REPLAY_DRY_RUN_SHAPE.name)],
  description: 'The replay started, or with dryRun the count only.',
});
