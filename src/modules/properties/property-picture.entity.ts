import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A picture the service downloaded from sourceUrl; its bytes live in the blob store under storageKey. */
@Entity('property_pictures')
export class PropertyPictureEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ name: 'source_id', type: 'text' }) sourceId: string;
  @Column({ name: 'source_url', type: 'text' }) sourceUrl: string;
  @Column({ name: 'storage_key', type: 'text' }) storageKey: string;
  @Column({ name: 'content_type', type: 'text' }) contentType: string;
  @Column({ name: 'byte_size', type: 'integer' }) byteSize: number;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}
