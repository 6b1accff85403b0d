import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobRequestCommentEntity } from '../job-request-comment.entity';
import { SqlRepository } from '../../../platform/database/sql-repository';
import { ACCOUNT_OWNED_COLUMNS, columns, SelectedRow, TIMESTAMP_COLUMNS } from '../../../platform/database/columns';

const COMMENT_COLUMNS = columns<JobRequestCommentEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    ...TIMESTAMP_COLUMNS,
    jobRequestId: 'job_request_id',
    authorKind: 'author_kind',
    authorEmail: 'author_email',
    message: 'message',
    languageCode: 'language_code',
    pictureStorageKey: 'picture_storage_key',
    pictureContentType: 'picture_content_type',
    pictureByteSize: 'picture_byte_size',
  },
  JobRequestCommentEntity,
);
const { all: COLUMNS, toEntity } = COMMENT_COLUMNS;

/** Chat queries in plain SQL; every one is scoped by account and job. */
@Injectable()
export class CommentsRepository extends SqlRepository {
  async insert(
    manager: EntityManager,
    comment: Omit<JobRequestCommentEntity, 'createdAt' | 'updatedAt'>,
  ): Promise<JobRequestCommentEntity> {
    const rows: SelectedRow[] = await manager.query(
      `INSERT INTO job_request_comments (id, account_id, job_request_id, author_kind, author_email, message, language_code,
                                         picture_storage_key, picture_content_type, picture_byte_size, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, date_trunc('milliseconds', now()), date_trunc('milliseconds', now()))
       RETURNING ${COLUMNS}`,
      [
        comment.id,
        comment.accountId,
        comment.jobRequestId,
        comment.authorKind,
        comment.authorEmail,
        comment.message,
        comment.languageCode,
        comment.pictureStorageKey,
        comment.pictureContentType,
        comment.pictureByteSize,
      ],
    );
    return toEntity(rows[0]);
  }

  /** A job's comments oldest first, optionally only those updated after a time; offset paging (the chat is small). */
  async list(
    accountId: string,
    jobRequestId: string,
    updatedAfter: Date | undefined,
    offset: number,
    limit: number,
  ): Promise<JobRequestCommentEntity[]> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_request_comments
        WHERE account_id = $1 AND job_request_id = $2 AND ($3::timestamptz IS NULL OR updated_at > $3)
        ORDER BY id OFFSET $4 LIMIT $5`,
      [accountId, jobRequestId, updatedAfter ?? null, offset, limit],
    );
    return rows.map(toEntity);
  }

  async findOne(accountId: string, jobRequestId: string, id: string): Promise<JobRequestCommentEntity | undefined> {
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_request_comments WHERE account_id = $1 AND job_request_id = $2 AND id = $3`,
      [accountId, jobRequestId, id],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }
}
