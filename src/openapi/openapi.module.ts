import { INestApplication, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocument } from './openapi.document';

/** GET /v1/openapi.json and the interactive reference at /docs (API process only). */
@Module({
  imports: [DiscoveryModule],
  controllers: [OpenApiController],
  providers: [OpenApiDocument],
})
export class OpenApiModule {
  /**
   * Binds the document to the app and serves Swagger UI at /docs from the swagger-ui-dist package
   * (its files, no CDN), with the document inlined; both are built on the first request, not at start.
   */
  static serveReference(app: INestApplication): void {
    const document = app.get(OpenApiDocument);
    document.bind(app);
    SwaggerModule.setup('docs', app as NestExpressApplication, () => document.get(), {
      raw: false,
      customSiteTitle: 'Property Operations Platform API reference',
      swaggerOptions: { docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false, persistAuthorization: false },
    });
  }
}
