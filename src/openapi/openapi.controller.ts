import { Controller, Get } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../platform/http/public.decorator';
import { OpenApiDocument } from './openapi.document';

@Controller('v1/openapi.json')
export class OpenApiController {
  constructor(private readonly document: OpenApiDocument) {}

  /** No key needed: integrators and the /docs reference read it before they have one. */
  @Public()
  @Get()
  get(): OpenAPIObject {
    return this.document.get();
  }
}
