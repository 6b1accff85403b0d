import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { NotFoundError, ValidationError } from '../errors/domain-error';
import { droppedKeyPaths, nestedShapeIssues, toValidationError, ValuesPlace } from './validation-issues';

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object]);

/**
 * The global pipe for @Body() and @Query() DTO classes: strict (unknown fields at
 * any depth are rejected), no implicit type coercion (query DTOs convert explicitly),
 * and every failure becomes a ValidationError with a pointer per field.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    // No stored id holds U+0000 (PostgreSQL text cannot): such a path id names nothing, a 404 like any unknown id.
    if (type === 'param' && typeof value === 'string' && value.includes('\u0000')) {
      throw new NotFoundError(metadata.data ?? 'Resource', JSON.stringify(value).slice(1, -1));
    }
    if ((type !== 'body' && type !== 'query') || !metatype || PRIMITIVES.has(metatype)) return value;

    // No body at all reads as {}; a JSON null body is a value, and not an object.
    const input = value === undefined ? {} : value;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw ValidationError.field('#', 'The request body must be a JSON object');
    }
    return validateStrictly(metatype as new () => object, input, type);
  }
}

/**
 * The API's validation of a body or query object, for the pipe and for anything else that must apply
 * a route's DTO exactly as the route does (the legacy batch worker, the console's forms, the MCP tools):
 * strict, no implicit conversion, defaults exposed; throws the ValidationError the route would answer
 * with, its messages naming the values as `where` has them (a tool's arguments for MCP).
 */
export async function validateStrictly<T extends object>(metatype: new () => T, input: object, where: ValuesPlace): Promise<T> {
  const instance = plainToInstance(metatype, input, { enableImplicitConversion: false, exposeDefaultValues: true }) as T;
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
  const dropped = droppedKeyPaths(input);
  const shape = nestedShapeIssues(instance);
  if (errors.length > 0 || dropped.length > 0 || shape.length > 0) throw toValidationError(errors, where, dropped, shape);
  return instance;
}
