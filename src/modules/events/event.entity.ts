import { Column, Entity } from 'typeorm';
import { AccountOwnedCreatedEntity } from '../../platform/database/entity-columns';

/** One row per event: the transactional outbox and the source of GET /v1/events. */
@Entity('events')
export class EventEntity extends AccountOwnedCreatedEntity {
  @Column({ name: 'event_name', type: 'text' }) eventName: string;
  @Column({ name: 'client_request_id', type: 'text' }) clientRequestId: string;
  @Column({ name: 'api_request_id', type: 'text' }) apiRequestId: string;
  @Column({ type: 'json' }) results: unknown[];
  // tx_id (xid8, the writing transaction's id) is set by the database and only read by EventsRepository.
  /** The W3C trace context of the request that wrote it (null with tracing off): the worker's spans continue it. */
  @Column({ type: 'text', nullable: true }) traceparent: string | null;
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true }) dispatchedAt: Date | null;
}
