import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { RequestContext } from '../../../platform/context/request-context';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { NotFoundError, ValidationError } from '../../../platform/errors/domain-error';
import { UploadedFileBytes } from '../../../platform/http/multipart';
import { parseDateTime } from '../../../platform/http/validators';
import { isIdOf, newId } from '../../../platform/ids/ids';
import { Page, unpaginated } from '../../../platform/pagination/page';
import { BLOB_STORE, BlobStore } from '../../../platform/storage/blob-store';
import { sniffImageType } from '../../../platform/storage/image-type';
import { EventsService } from '../../events/events.service';
import { invitedProvider } from '../job-changes.rules';
import { JobRequestStore } from '../job-request-store.service';
import { JobRequestsRepository } from '../job-requests.repository';
import { nextStatus } from '../job-status.rules';
import { CommentResponse, toCommentResponse } from './comment.response';
import { CommentsRepository } from './comments.repository';
import { CreateCommentDto } from './dto/create-comment.dto';
import { ListCommentsQueryDto } from './dto/list-comments.dto';
import { JOB_REQUEST_IDS } from '../job-requests.ids';

/**
 * A job's chat (spec 4.7): the host's comments (JSON or multipart with an image, which the service
 * checks by its bytes and keeps a copy of in the blob store) and the providers' (comment.new).
 */
@Injectable()
export class CommentsService {
  private readonly logger = new Logger(CommentsService.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: CommentsRepository,
    private readonly jobs: JobRequestsRepository,
    private readonly store: JobRequestStore,
    private readonly events: EventsService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Spec 4.7: the envelope always says nextCursor null and hasMore false; clients page with offset. */
  async list(accountId: string, jobRequestId: string, query: ListCommentsQueryDto): Promise<Page<CommentResponse>> {
    await this.assertJob(accountId, jobRequestId);
    const updatedAfter = query.updatedAfter === undefined ? undefined : parseDateTime(query.updatedAfter);
    const rows = await this.repository.list(accountId, jobRequestId, updatedAfter, query.offset, query.limit);
    return unpaginated(rows.map((row) => toCommentResponse(row, this.config.publicBaseUrl)));
  }

  /**
   * The host's comment: a message, an image (`file`, multipart only), or both. The job is checked
   * first (404 before anything is stored); the image's bytes must be jpeg, png, webp or gif; its
   * copy is stored before the transaction and removed again if the transaction fails.
   */
  async createHostComment(
    ctx: RequestContext,
    jobRequestId: string,
    dto: CreateCommentDto,
    file?: UploadedFileBytes,
  ): Promise<CommentResponse> {
    if ((dto.message === undefined || dto.message === null) && !file) {
      const detail = 'Send a message, an image file (multipart/form-data), or both';
      throw new ValidationError(detail, [
        { pointer: '#/message', detail },
        { pointer: '#/file', detail },
      ]);
    }
    await this.assertJob(ctx.accountId, jobRequestId);
    const id = newId(JOB_REQUEST_IDS.comment);
    let picture: { storageKey: string; contentType: string; byteSize: number } | undefined;
    if (file) {
      const contentType = sniffImageType(file.buffer);
      if (!contentType) throw ValidationError.field('#/file', 'file is not an image (jpeg, png, webp or gif)');
      picture = { storageKey: `comments/${ctx.accountId}/${id}`, contentType, byteSize: file.buffer.length };
      await this.blobs.put(picture.storageKey, file.buffer, contentType);
    }
    try {
      return await this.uow.run(ctx, async (tx) => {
        if (!(await this.jobs.exists(tx.manager, ctx.accountId, jobRequestId))) throw new NotFoundError('Job request', jobRequestId);
        const comment = await this.repository.insert(tx.manager, {
          id,
          accountId: ctx.accountId,
          jobRequestId,
          authorKind: 'host',
          authorEmail: null,
          message: dto.message ?? null,
          languageCode: dto.languageCode ?? null,
          pictureStorageKey: picture?.storageKey ?? null,
          pictureContentType: picture?.contentType ?? null,
          pictureByteSize: picture?.byteSize ?? null,
        });
        return toCommentResponse(comment, this.config.publicBaseUrl);
      });
    } catch (error) {
      if (picture) {
        const key = picture.storageKey;
        await this.blobs.delete(key).catch((e: Error) => this.logger.warn(`could not delete orphan blob ${key}: ${e.message}`));
      }
      throw error;
    }
  }

  /** A provider's message (test helpers): the author must be invited to the job; writes comment.new. */
  async createProviderComment(ctx: RequestContext, jobRequestId: string, authorEmail: string, message: string): Promise<CommentResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      nextStatus(job.id, job.status, 'comment');
      const author = invitedProvider(job, authorEmail, '#/authorEmail');
      const comment = await this.repository.insert(tx.manager, {
        id: newId(JOB_REQUEST_IDS.comment),
        accountId: ctx.accountId,
        jobRequestId: job.id,
        authorKind: 'provider',
        authorEmail: author.email,
        message,
        languageCode: null,
        pictureStorageKey: null,
        pictureContentType: null,
        pictureByteSize: null,
      });
      const shape = toCommentResponse(comment, this.config.publicBaseUrl);
      await this.events.publish(tx, 'comment.new', [shape]);
      return shape;
    });
  }

  /** GET …/comments/{commentId}/picture: the stored copy, for the owning account only; 404 when the comment has none. */
  async picture(accountId: string, jobRequestId: string, commentId: string): Promise<{ bytes: Buffer; contentType: string }> {
    const comment =
      isIdOf(JOB_REQUEST_IDS.jobRequest, jobRequestId) && isIdOf(JOB_REQUEST_IDS.comment, commentId)
        ? await this.repository.findOne(accountId, jobRequestId, commentId)
        : undefined;
    const stored = comment?.pictureStorageKey ? await this.blobs.get(comment.pictureStorageKey) : undefined;
    if (!comment || !stored) throw new NotFoundError('Comment picture', commentId);
    return { bytes: stored.bytes, contentType: comment.pictureContentType ?? stored.contentType };
  }

  private async assertJob(accountId: string, jobRequestId: string): Promise<void> {
    const found = isIdOf(JOB_REQUEST_IDS.jobRequest, jobRequestId) && (await this.jobs.exists(this.jobs.manager, accountId, jobRequestId));
    if (!found) throw new NotFoundError('Job request', jobRequestId);
  }
}
