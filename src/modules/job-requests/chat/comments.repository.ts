import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { JobRequestCommentEntity } from '../job-request-comment.entity';

const COLUMNS =
  'id, account_id, job_request_id, author_kind, author_email, message, language_code, picture_storage_key, picture_content_type, picture_byte_size, created_at, updated_at';

interface CommentRow {
  id: string;
  account_id: string;
  job_request_id: string;
  author_kind: JobRequestCommentEntity['authorKind'];
  author_email: string | null;
  message: string | null;
  language_code: string | null;
  picture_storage_key: string | null;
  picture_content_type: string | null;
  picture_byte_size: number | null;
  created_at: Date;
  updated_at: Date;
}

function toEntity(row: CommentRow): JobRequestCommentEntity {
  return Object.assign(new JobRequestCommentEntity(), {
    id: row.id,
    accountId: row.account_id,
    jobRequestId: row.job_request_id,
    authorKind: row.author_kind,
    authorEmail: row.author_email,
    message: row.message,
    languageCode: row.language_code,
    pictureStorageKey: row.picture_storage_key,
    pictureContentType: row.picture_content_type,
    pictureByteSize: row.picture_byte_size,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** Chat queries in plain SQL; every one is scoped by account and job. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    comment: Omit<JobRequestCommentEntity, 'createdAt' | 'updatedAt'>,
  ): Promise<JobRequestCommentEntity> {
    const rows: CommentRow[] = await manager.query(
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
    const rows: CommentRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_request_comments
        WHERE account_id = $1 AND job_request_id = $2 AND ($3::timestamptz IS NULL OR updated_at > $3)
        ORDER BY id OFFSET $4 LIMIT $5`,
      [accountId, jobRequestId, updatedAfter ?? null, offset, limit],
    );
    return rows.map(toEntity);
  }

  async findOne(accountId: string, jobRequestId: string, id: string): Promise<JobRequestCommentEntity | undefined> {
    const rows: CommentRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_request_comments WHERE account_id = $1 AND job_request_id = $2 AND id = $3`,
      [accountId, jobRequestId, id],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }
}
