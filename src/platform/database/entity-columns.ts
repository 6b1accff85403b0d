import { Column, PrimaryColumn } from 'typeorm';

// The columns every account-owned table starts with (src/database/migration-sql.ts: accountTable and
// TIMESTAMPS), declared once. Abstract and without @Entity: TypeORM copies their columns into each entity.

/** id and account_id. */
export abstract class AccountOwnedEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
}

/** id, account_id and created_at (rows never updated). */
export abstract class AccountOwnedCreatedEntity extends AccountOwnedEntity {
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}

/** id, account_id, created_at and updated_at. */
export abstract class AccountOwnedTimestampedEntity extends AccountOwnedCreatedEntity {
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
