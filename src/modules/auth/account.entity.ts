import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Plan } from './plans';

export { PLANS, type Plan } from './plans';
export type SubscriptionStatus = 'active' | 'inactive';

@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) plan: Plan;
  @Column({ name: 'subscription_status', type: 'text' }) subscriptionStatus: SubscriptionStatus;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  /** Set on a sandbox (test mode, docs/test-mode.md): the live account it belongs to. */
  @Column({ name: 'live_account_id', type: 'text', nullable: true }) liveAccountId: string | null;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
