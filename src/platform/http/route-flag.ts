import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * A boolean route marker (`SetMetadata(key, true)` on the handler or its controller), read once per handler:
 * handlers never change at run time, and guards ask on every request.
 */
export class RouteFlag {
  private readonly byHandler = new WeakMap<object, boolean>();

  constructor(private readonly key: string) {}

  of(reflector: Reflector, context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let value = this.byHandler.get(handler);
    if (value === undefined) {
      value = reflector.getAllAndOverride<boolean>(this.key, [handler, context.getClass()]) === true;
      this.byHandler.set(handler, value);
    }
    return value;
  }
}
