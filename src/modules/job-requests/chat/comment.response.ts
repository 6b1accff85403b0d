import { dateTime, enumOf, everyMember, id, orNull, str, uri } from '../../../platform/openapi/json-schema';
import { readShape } from '../../../platform/openapi/read-shape';
import type { CommentAuthorKind, JobRequestCommentEntity } from '../job-request-comment.entity';
import { JOB_REQUEST_IDS } from '../job-requests.ids';

/** Where the service serves a comment's image (behind x-api-key, like property pictures). */
export function commentPictureUrl(publicBaseUrl: string, comment: Pick<JobRequestCommentEntity, 'id' | 'jobRequestId'>): string {
  return `${publicBaseUrl}/v1/jobRequests/${comment.jobRequestId}/comments/${comment.id}/picture`;
}

/** A chat comment (the spec does not show the record; docs/job-requests.md): the API's and comment.new's. */
export interface CommentResponse {
  commentId: string;
  jobRequestId: string;
  authorKind: CommentAuthorKind;
  /** The provider's email; null for the host's own messages. */
  authorEmail: string | null;
  message: string | null;
  languageCode: string | null;
  pictureUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toCommentResponse(comment: JobRequestCommentEntity, publicBaseUrl: string): CommentResponse {
  return {
    commentId: comment.id,
    jobRequestId: comment.jobRequestId,
    authorKind: comment.authorKind,
    authorEmail: comment.authorEmail,
    message: comment.message,
    languageCode: comment.languageCode,
    pictureUrl: comment.pictureStorageKey ? commentPictureUrl(publicBaseUrl, comment) : null,
    createdAt: new Date(comment.createdAt).toISOString(),
    updatedAt: new Date(comment.updatedAt).toISOString(),
  };
}

export const COMMENT_SHAPE = readShape<CommentResponse>(
  'Comment',
  "A message in a job's chat; pictureUrl serves its image behind x-api-key.",
  {
    commentId: id(JOB_REQUEST_IDS.comment),
    jobRequestId: id(JOB_REQUEST_IDS.jobRequest),
    authorKind: enumOf(everyMember<CommentAuthorKind>({ host: true, provider: true })),
    authorEmail: orNull(str),
    message: orNull(str),
    languageCode: orNull(str),
    pictureUrl: orNull(uri),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
