import { Controller, Get } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../platform/http/public.decorator';
import { OpenApiDocument } from './openapi.document';
import { RouteDoc } from '../platform/openapi/route-doc';

@Controller('v1/openapi.json')
export class OpenApiController {
  constructor(private readonly document: OpenApiDocument) {}

  /** No key needed: integrators and the /docs reference read it before they have one. */
  @RouteDoc({
    summary: 'This OpenAPI 3.1 document',
    description: 'No x-api-key needed. The interactive reference at /docs reads the same document.',
    response: { json: true, description: 'The OpenAPI document.' },
  })
  @Public()
  @Get()
  get(): OpenAPIObject {
    return this.document.get();
  }
}
