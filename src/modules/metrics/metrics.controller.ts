import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { MetricsService } from './metrics.service.js';

const EXAMPLE = [
  '# HELP http_requests_total HTTP requests by route and status',
  '# TYPE http_requests_total counter',
  'http_requests_total{method="GET",route="/health/live",status="200"} 3',
  '# HELP events_queue_jobs Jobs of the events queue by state',
  '# TYPE events_queue_jobs gauge',
  'events_queue_jobs{state="waiting"} 0',
  '',
].join('\n');

/** Prometheus text format at /metrics. */
@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'The metrics of this API process in the Prometheus text exposition format, version 0.0.4 (Content-Type ' +
      '`text/plain; version=0.0.4; charset=utf-8`): HTTP requests by method, route pattern and status and their latency, ' +
      "Node.js process metrics, the cluster's events by outcome (accepted, duplicates, processed, rejected, failed) with the " +
      'processing lag and job duration histograms, and the events queue depth by state. For a Prometheus scrape. No credentials.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4; charset=utf-8`)',
    schema: { type: 'string', example: EXAMPLE },
  })
  @Header('content-type', 'text/plain; version=0.0.4')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
