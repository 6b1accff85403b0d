import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';

export type CommentAuthorKind = 'host' | 'provider';

/** A message in a job's chat: from the host (the API) or from a provider; text, an image, or both. */
@Entity('job_request_comments')
export class JobRequestCommentEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'job_request_id', type: 'text' }) jobRequestId: string;
  @Column({ name: 'author_kind', type: 'text' }) authorKind: CommentAuthorKind;
  /** The provider's email; null for the host. */
  @Column({ name: 'author_email', type: 'text', nullable: true }) authorEmail: string | null;
  @Column({ type: 'text', nullable: true }) message: string | null;
  @Column({ name: 'language_code', type: 'text', nullable: true }) languageCode: string | null;
  /** The uploaded image's copy in the blob store; null when the comment has none. */
  @Column({ name: 'picture_storage_key', type: 'text', nullable: true }) pictureStorageKey: string | null;
  @Column({ name: 'picture_content_type', type: 'text', nullable: true }) pictureContentType: string | null;
  @Column({ name: 'picture_byte_size', type: 'integer', nullable: true }) pictureByteSize: number | null;
}
