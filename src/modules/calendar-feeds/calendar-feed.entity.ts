import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';
import type { FeedStatus } from './calendar-feed.rules';

/** An iCal link synced into a property's bookings (issue 14, docs/calendar-feeds.md). */
@Entity('calendar_feeds')
export class CalendarFeedEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', nullable: true }) label: string | null;
  @Column({ name: 'check_in_time', type: 'text' }) checkInTime: string;
  @Column({ name: 'check_out_time', type: 'text' }) checkOutTime: string;
  @Column({ name: 'default_number_of_guests', type: 'integer' }) defaultNumberOfGuests: number;
  @Column({ name: 'skip_blocked', type: 'boolean' }) skipBlocked: boolean;
  @Column({ type: 'text' }) status: FeedStatus;
  @Column({ name: 'last_synced_at', type: 'timestamptz', nullable: true }) lastSyncedAt: Date | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'last_warning', type: 'text', nullable: true }) lastWarning: string | null;
  @Column({ name: 'skipped_events', type: 'integer' }) skippedEvents: number;
  @Column({ name: 'bookings_imported', type: 'integer' }) bookingsImported: number;
  @Column({ name: 'consecutive_failures', type: 'integer' }) consecutiveFailures: number;
  @Column({ type: 'text', nullable: true }) etag: string | null;
  @Column({ name: 'last_modified', type: 'text', nullable: true }) lastModified: string | null;
  @Column({ name: 'next_sync_at', type: 'timestamptz' }) nextSyncAt: Date;
  @Column({ name: 'sync_claimed_until', type: 'timestamptz', nullable: true }) syncClaimedUntil: Date | null;
  /** POST …/sync since the running sync's claim (the claim clears it): that sync leaves the feed due now. */
  @Column({ name: 'sync_requested_at', type: 'timestamptz', nullable: true }) syncRequestedAt: Date | null;
}
