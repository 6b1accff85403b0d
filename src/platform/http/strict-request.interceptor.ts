import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { ApiRequest } from './request-context';

/**
 * Global, after the auth and rate-limit guards (so a caller is known and counted
 * first, and the response carries its limit headers): a body the JSON middleware
 * could not read (malformed, 413, 415) is answered now.
 */
@Injectable()
export class StrictRequestInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ApiRequest>();
    if (req.bodyError) throw req.bodyError;
    return next.handle();
  }
}
