import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { MetricsService } from './metrics.service.js';

/** Prometheus text format at /metrics. */
@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics: requests by route and status, latency, events by outcome across processes, queue depth' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text format', schema: { type: 'string' } })
  @Header('content-type', 'text/plain; version=0.0.4')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
