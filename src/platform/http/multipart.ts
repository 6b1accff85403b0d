import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { MulterOptions } from '@nestjs/platform-express/multer/interfaces/multer-options.interface';
import { Observable, throwError } from 'rxjs';
import { catchError } from 'rxjs/operators';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { DomainError, ValidationError } from '../errors/domain-error';

/** Set on a handler that takes multipart/form-data; everywhere else such a body is a 415 (StrictRequestGuard). */
export const ACCEPTS_MULTIPART = 'acceptsMultipart';

/** The part multer's memory storage hands the handler (`@UploadedFile()`). */
export interface UploadedFileBytes {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

/** Text fields of a multipart body: at most this many, each at most this long; one file part. */
const MAX_FIELDS = 10;
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * multer's options for every multipart route (registered with MulterModule by the module that has
 * one): no storage engine and no destination, so multer keeps the file in memory (`buffer`), cut off
 * while streaming at DOWNLOAD_MAX_BYTES (the picture cap); one file part, a few short text fields.
 */
export function multipartOptions(config: Pick<AppConfig, 'download'>): MulterOptions {
  return {
    limits: {
      fileSize: config.download.maxBytes,
      files: 1,
      fields: MAX_FIELDS,
      fieldSize: MAX_FIELD_BYTES,
      fieldNameSize: 100,
      parts: MAX_FIELDS + 1,
    },
  };
}

/**
 * FileInterceptor (multer) answers with HttpExceptions; this turns them into our problems:
 * a file over the cap → 413 payloadTooLarge; a file part under another name → 400 objectStrict
 * naming it (like an unknown JSON field); any other malformed multipart → 400 malformedMultipart.
 */
@Injectable()
export class MultipartProblemsInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(catchError((error: unknown) => throwError(() => this.toProblem(error))));
  }

  private toProblem(error: unknown): unknown {
    if (!(error instanceof HttpException)) return error;
    if (error.getStatus() === HttpStatus.PAYLOAD_TOO_LARGE) {
      return new DomainError(
        'payload_too_large',
        'payloadTooLarge',
        `The file exceeds the limit of ${this.config.download.maxBytes} bytes`,
      );
    }
    if (error.getStatus() !== HttpStatus.BAD_REQUEST) return error;
    // multer's "Unexpected field" (a file part the route does not take) names the part after " - ".
    const unexpected = /^Unexpected (?:file )?field - (.+)$/.exec(error.message);
    if (unexpected) {
      const name = unexpected[1];
      return new ValidationError(
        `Unknown field: ${name}`,
        [{ pointer: `#/${name}`, detail: `Unknown field ${name} is not allowed` }],
        'objectStrict',
      );
    }
    return new DomainError('invalid', 'malformedMultipart', `The multipart/form-data body could not be read: ${error.message}`);
  }
}

/**
 * The handler takes JSON or multipart/form-data whose file part is `field` (multer's FileInterceptor).
 * ACCEPTS_MULTIPART holds the part's name (truthy), which the OpenAPI document reads.
 */
export function MultipartFile(field: string): MethodDecorator {
  return applyDecorators(SetMetadata(ACCEPTS_MULTIPART, field), UseInterceptors(MultipartProblemsInterceptor, FileInterceptor(field)));
}
