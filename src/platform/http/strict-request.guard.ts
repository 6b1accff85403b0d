import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { ValidationError } from '../errors/domain-error';
import { unsupportedMediaType } from './json-body.middleware';
import { ACCEPTS_MULTIPART } from './multipart';
import { IS_PUBLIC } from './public.decorator';
import { ApiRequest } from './request-context';
import { RouteFlag } from './route-flag';
import { toValidationError } from './validation-issues';

interface DeclaredInputs {
  body: boolean;
  query: boolean;
}

/** Handlers never change at run time, so each one's declaration (and whether it is public) is read once. */
const declaredByHandler = new WeakMap<object, DeclaredInputs>();
const publicRoute = new RouteFlag(IS_PUBLIC);

/** Which of @Body() / @Query() a handler declares (custom decorators such as @Ctx() have non-numeric keys). */
function declaredInputs(context: ExecutionContext): DeclaredInputs {
  const handler = context.getHandler();
  let declared = declaredByHandler.get(handler);
  if (!declared) {
    const args: Record<string, unknown> = Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {};
    const types = new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
    declared = { body: types.has(RouteParamtypes.BODY), query: types.has(RouteParamtypes.QUERY) };
    declaredByHandler.set(handler, declared);
  }
  return declared;
}

/**
 * A global guard registered after the auth and rate-limit guard (so a caller is known and
 * counted first, and the response carries its limit headers). A guard rather than an
 * interceptor: a route with no interceptor skips Nest's interceptor chain (rxjs) entirely.
 * 1. a body the JSON middleware could not read (malformed, 413, 415) is answered now, and so is a
 *    multipart/form-data body sent to a route that does not take it (415);
 * 2. a route without a @Query() DTO takes no query parameters and a route without a
 *    @Body() DTO takes no body fields, so both are as strict as DTO routes (objectStrict).
 * The public health check keeps accepting whatever load balancers append.
 */
@Injectable()
export class StrictRequestGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<ApiRequest>();
    if (req.bodyError) throw req.bodyError;
    if (req.multipartPending && !this.reflector.get<boolean>(ACCEPTS_MULTIPART, context.getHandler())) {
      req.resume(); // drain the unread body so the connection stays usable for the answer
      throw unsupportedMediaType(req);
    }
    if (publicRoute.of(this.reflector, context)) return true;

    const declared = declaredInputs(context);
    const queryNames = Object.keys(req.query ?? {});
    if (!declared.query && queryNames.length > 0) {
      throw toValidationError(
        [],
        'query',
        queryNames.map((name) => [name]),
      );
    }
    if (!declared.body && req.body !== undefined) {
      const body: unknown = req.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw ValidationError.field('#', 'This route takes no request body');
      }
      const fields = Object.keys(body);
      if (fields.length > 0)
        throw toValidationError(
          [],
          'body',
          fields.map((name) => [name]),
        );
    }
    return true;
  }
}
