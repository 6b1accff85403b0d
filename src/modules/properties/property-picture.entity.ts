import { Column, Entity } from 'typeorm';
import { AccountOwnedCreatedEntity } from '../../platform/database/entity-columns';

/** A picture the service downloaded from sourceUrl; its bytes live in the blob store under storageKey. */
@Entity('property_pictures')
export class PropertyPictureEntity extends AccountOwnedCreatedEntity {
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ name: 'source_id', type: 'text' }) sourceId: string;
  @Column({ name: 'source_url', type: 'text' }) sourceUrl: string;
  @Column({ name: 'storage_key', type: 'text' }) storageKey: string;
  @Column({ name: 'content_type', type: 'text' }) contentType: string;
  @Column({ name: 'byte_size', type: 'integer' }) byteSize: number;
}
