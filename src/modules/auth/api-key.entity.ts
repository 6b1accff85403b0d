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
  /** A test key (`popk_test_…`): it acts on the account's sandbox (docs/test-mode.md). */
  @Column({ type: 'boolean', default: false }) test: boolean;
  /** The holder's name for the key (the console asks for one); null for keys issued without. */
  @Column({ type: 'text', nullable: true }) label: string | null;
  /** The key's last four characters, so its holder can tell keys apart; null for keys issued before it was kept. */
  @Column({ name: 'last_four', type: 'text', nullable: true }) lastFour: string | null;
}
