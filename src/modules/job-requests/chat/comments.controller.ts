import { Body, Controller, Get, Param, Post, Query, Res, StreamableFile, UploadedFile } from '@nestjs/common';
import type { Response } from 'express';
import { RequestContext } from '../../../platform/context/request-context';
import { MultipartFile, UploadedFileBytes } from '../../../platform/http/multipart';
import { Ctx } from '../../../platform/http/request-context';
import { storedImage } from '../../../platform/http/stored-image';
import { CommentsService } from './comments.service';
import { CreateCommentDto } from './dto/create-comment.dto';
import { ListCommentsQueryDto } from './dto/list-comments.dto';
import { RouteDoc, image, ok, page } from '../../../platform/openapi/route-doc';
import { COMMENT_SHAPE } from './comment.response';

@Controller('v1/jobRequests/:jobRequestId/comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @RouteDoc({
    summary: "Read a job's chat",
    description: 'Unpaginated by cursor: offset and limit select the comments (nextCursor null, hasMore false).',
    response: page(COMMENT_SHAPE, 'The comments, oldest first.'),
    example: { query: { limit: 50 } },
  })
  @Get()
  list(@Ctx() ctx: RequestContext, @Param('jobRequestId') jobRequestId: string, @Query() query: ListCommentsQueryDto) {
    return this.comments.list(ctx.accountId, jobRequestId, query);
  }

  /** JSON, or multipart/form-data whose `file` part is the image (parsed by multer, capped while streaming). */
  @RouteDoc({
    summary: "Write in a job's chat",
    description:
      'JSON, or multipart/form-data with an image in the file part (checked by its bytes; 413 over the size cap). At least one of message or file.',
    fileOr: ['message'],
    response: ok(COMMENT_SHAPE, 'The comment.'),
    example: { body: { message: 'The key box code changed to 4821.', languageCode: 'en' } },
  })
  @Post()
  @MultipartFile('file')
  create(
    @Ctx() ctx: RequestContext,
    @Param('jobRequestId') jobRequestId: string,
    @Body() dto: CreateCommentDto,
    @UploadedFile() file: UploadedFileBytes | undefined,
  ) {
    return this.comments.createHostComment(ctx, jobRequestId, dto, file);
  }

  /** The stored image of a comment, at its pictureUrl; behind x-api-key and scoped to the account, like property pictures. */
  @RouteDoc({
    summary: "A chat comment's image",
    description: "The image a comment of the job's chat carries, with its content type; a comment without one is a 404.",
    response: image(),
  })
  @Get(':commentId/picture')
  async picture(
    @Ctx() ctx: RequestContext,
    @Param('jobRequestId') jobRequestId: string,
    @Param('commentId') commentId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    return storedImage(res, await this.comments.picture(ctx.accountId, jobRequestId, commentId));
  }
}
