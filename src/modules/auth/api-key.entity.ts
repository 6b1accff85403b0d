import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ApiKeyKind = 'platform' | 'legacy';

/** The key itself is never stored: only its SHA-256, which is what a lookup compares. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'key_hash', type: 'bytea' }) keyHash: Buffer;
  @Column({ type: 'text' }) kind: ApiKeyKind;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt: Date | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
}
