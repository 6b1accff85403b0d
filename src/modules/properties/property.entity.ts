import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';

export type BedType = 'super-king' | 'king' | 'queen' | 'twin' | 'double' | 'sofabed' | 'child';

export interface BedDetail {
  bedType: BedType;
  twinable: boolean;
  displayLabel: string;
  quantity: number;
}

export interface OtherAttribute {
  label: string;
  value: string | string[];
  group?: string;
  pictures?: string[];
}

/** details as stored: everything the client wrote except disableRemindersAutomation. */
export interface PropertyDetails {
  information?: string;
  access?: string;
  garbage?: string;
  parking?: string;
  wifiName?: string;
  wifiPassword?: string;
  wifiDescription?: string;
  otherAttributes?: OtherAttribute[];
}

@Entity('properties')
export class PropertyEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'source_id', type: 'text' }) sourceId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ name: 'country_code', type: 'char', length: 2 }) countryCode: string;
  @Column({ name: 'time_zone', type: 'text' }) timeZone: string;
  @Column({ type: 'double precision' }) latitude: number;
  @Column({ type: 'double precision' }) longitude: number;
  @Column({ type: 'text', nullable: true }) address: string | null;
  @Column({ type: 'text', nullable: true }) type: string | null;
  @Column({ type: 'integer' }) beds: number;
  @Column({ type: 'integer' }) bedrooms: number;
  @Column({ type: 'integer' }) bathrooms: number;
  @Column({ type: 'text', array: true, nullable: true }) tags: string[] | null;
  @Column({ name: 'bed_details', type: 'jsonb', nullable: true }) bedDetails: BedDetail[] | null;
  @Column({ type: 'jsonb', nullable: true }) details: PropertyDetails | null;
  /** Write-only flag (spec 2.1): stored for the reminders automation, never in a read shape. */
  @Column({ name: 'disable_reminders_automation', type: 'boolean', default: false }) disableRemindersAutomation: boolean;
  @Column({ name: 'picture_url', type: 'text', nullable: true }) pictureUrl: string | null;
}
