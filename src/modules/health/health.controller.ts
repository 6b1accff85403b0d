import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../../platform/http/public.decorator';
import { HealthReport, HealthService } from './health.service';
import { RouteDoc, ok } from '../../platform/openapi/route-doc';
import { HEALTH_SHAPE } from './health.service';

/** GET /v1/health: no key needed; 200 when PostgreSQL and Redis answer, 503 otherwise (for load balancers). */
@Controller('v1/health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @RouteDoc({
    summary: 'Service health and deployed version',
    description: 'No x-api-key needed. 503 (same body, status unavailable) when PostgreSQL or Redis does not answer within a second.',
    response: ok(HEALTH_SHAPE, 'Both dependencies answer.'),
    problems: [503],
  })
  @Public()
  @Get()
  async check(@Res({ passthrough: true }) res: Response): Promise<HealthReport> {
    const report = await this.health.report();
    res.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}
