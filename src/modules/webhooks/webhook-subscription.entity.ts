import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('webhook_subscriptions')
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ type: 'text' }) url: string;
  @Column({ name: 'event_filters', type: 'text', array: true }) eventFilters: string[];
  @Column({ type: 'boolean' }) enabled: boolean;
  @Column({ name: 'max_retries', type: 'integer' }) maxRetries: number;
  @Column({ name: 'signing_secret', type: 'text' }) signingSecret: string;
  /** Kept for 24 hours after a rotation so deliveries carry both signatures. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true }) previousSecretExpiresAt: Date | null;
  @Column({ name: 'disabled_reason', type: 'text', nullable: true }) disabledReason: string | null;
  /** Consecutive permanently failed non-test deliveries; 10 disables the subscription. */
  @Column({ name: 'consecutive_failures', type: 'integer' }) consecutiveFailures: number;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
