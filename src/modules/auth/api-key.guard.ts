import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../../platform/http/public.decorator';
import { ApiRequest } from '../../platform/http/request-context';
import { AuthService } from './auth.service';

/** Global guard: every route needs x-api-key unless marked @Public(). The key is read from the header only. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<ApiRequest>();
    req.caller = await this.auth.authenticate(req.headers['x-api-key']);
    return true;
  }
}
