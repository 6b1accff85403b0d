import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One row per event: the transactional outbox and the source of GET /v1/events. */
@Entity('events')
export class EventEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'event_name', type: 'text' }) eventName: string;
  @Column({ name: 'client_request_id', type: 'text' }) clientRequestId: string;
  @Column({ name: 'api_request_id', type: 'text' }) apiRequestId: string;
  @Column({ type: 'json' }) results: unknown[];
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  // tx_id (xid8, the writing transaction's id) is set by the database and only read by EventsRepository.
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true }) dispatchedAt: Date | null;
}
