import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed_permanent';

export interface DeliveryAttempt {
  at: string;
  responseCode: number | null;
  responseSnippet: string | null;
  errorMessage: string | null;
  /** null when the outcome is unknown (the worker stopped before recording the attempt). */
  durationMs: number | null;
}

@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'subscription_id', type: 'text' }) subscriptionId: string;
  @Column({ name: 'event_id', type: 'text', nullable: true }) eventId: string | null;
  @Column({ name: 'event_name', type: 'text' }) eventName: string;
  @Column({ type: 'boolean' }) test: boolean;
  @Column({ name: 'test_payload', type: 'jsonb', nullable: true }) testPayload: Record<string, unknown> | null;
  @Column({ type: 'text' }) status: DeliveryStatus;
  @Column({ name: 'attempt_count', type: 'integer' }) attemptCount: number;
  @Column({ type: 'jsonb' }) attempts: DeliveryAttempt[];
  @Column({ name: 'first_attempt_at', type: 'timestamptz', nullable: true }) firstAttemptAt: Date | null;
  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true }) lastAttemptAt: Date | null;
  @Column({ name: 'next_retry_at', type: 'timestamptz', nullable: true }) nextRetryAt: Date | null;
  /** While an attempt is being sent: when it was claimed, and until when the claim holds. */
  @Column({ name: 'in_flight_since', type: 'timestamptz', nullable: true }) inFlightSince: Date | null;
  @Column({ name: 'in_flight_until', type: 'timestamptz', nullable: true }) inFlightUntil: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}
