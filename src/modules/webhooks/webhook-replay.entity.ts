import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ReplayStatus = 'running' | 'completed' | 'stopped';

/** A replay of a window of the event log to one subscription (issue 13), with its progress. */
@Entity('webhook_replays')
export class WebhookReplayEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'subscription_id', type: 'text' }) subscriptionId: string;
  @Column({ type: 'text' }) status: ReplayStatus;
  @Column({ type: 'timestamptz' }) since: Date;
  @Column({ type: 'timestamptz' }) until: Date;
  @Column({ name: 'event_filters', type: 'text', array: true }) eventFilters: string[];
  @Column({ name: 'only_failed', type: 'boolean' }) onlyFailed: boolean;
  /** Deliveries the window had to emit when the replay started. */
  @Column({ type: 'integer' }) total: number;
  /** Deliveries emitted so far. */
  @Column({ type: 'integer' }) done: number;
  /** Events of the window passed over when reached (their delivery pending already, or not failed with onlyFailed). */
  @Column({ type: 'integer' }) skipped: number;
  /** The last event processed (feed position); null before the first batch. */
  @Column({ name: 'cursor_tx_id', type: 'text', nullable: true }) cursorTxId: string | null;
  @Column({ name: 'cursor_id', type: 'text', nullable: true }) cursorId: string | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt: Date | null;
}
