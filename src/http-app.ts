import { DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppModule } from './app.module';
import { AppConfig } from './config/config';
import { serveLlmsTxt } from './openapi/llms-txt';
import { OpenApiModule } from './openapi/openapi.module';
import { requestDurationMiddleware } from './platform/metrics/http-metrics';
import { Metrics, serveMetrics } from './platform/metrics/metrics';
import { answerClientErrorsWithProblems } from './platform/http/client-error';

/** Root that adds modules beside AppModule (tests mount probe controllers this way). */
@Module({})
class HttpRootModule {}

/** Builds the API application; shared by src/main.ts and the end-to-end tests. */
export async function createHttpApp(config: AppConfig, extraModules: Array<Type | DynamicModule> = []): Promise<INestApplication> {
  const root = extraModules.length
    ? { module: HttpRootModule, imports: [AppModule.forRoot(config), ...extraModules] }
    : AppModule.forRoot(config);
  const app = await NestFactory.create<NestExpressApplication>(root, { bodyParser: false, bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Which X-Forwarded-For hops name the client (req.ip): failed authentications are limited per client address.
  app.set('trust proxy', config.trustProxy);
  if (config.ops.metricsToken) {
    // Before every other middleware, so a request is timed from the start. Not mounted without a token.
    const metrics = app.get(Metrics);
    app.use(requestDurationMiddleware(metrics.httpRequestDuration));
    const scrape = (req: IncomingMessage, res: ServerResponse) => void serveMetrics(metrics, config.ops.metricsToken, req, res);
    app.getHttpAdapter().get('/metrics', scrape as never);
  }
  OpenApiModule.serveReference(app);
  serveLlmsTxt(app, config.publicBaseUrl);
  answerClientErrorsWithProblems(app.getHttpServer(), config.errorsBaseUrl);
  return app;
}
