import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { RedisHealthIndicator } from './redis.health.js';

class LivenessResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
}

class ReadinessChecks {
  @ApiProperty({ enum: ['up'], example: 'up', description: 'PostgreSQL answered' }) postgres: 'up';
  @ApiProperty({ enum: ['up'], example: 'up', description: 'Redis answered' }) redis: 'up';
}

class ReadinessResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ReadinessChecks }) checks: ReadinessChecks;
}

/** How long each dependency has to answer. */
const CHECK_TIMEOUT_MS = 2000;
/** The checks, in the order a 503 names them. */
const DEPENDENCIES = ['postgres', 'redis'] as const;

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get('live')
  @ApiOperation({
    summary: 'Liveness',
    description: 'Answers {"status":"ok"} while the process serves HTTP, without looking at PostgreSQL or Redis: for a liveness probe. No credentials.',
  })
  @ApiOkResponse({ type: LivenessResponse, description: 'The process is up' })
  live(): LivenessResponse {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness',
    description:
      'Checks that PostgreSQL and Redis answer (within 2 seconds each): 200 with both up, else 503 service_unavailable whose ' +
      'details name each one unreachable (field postgres or redis). For a readiness probe or a load balancer. No credentials.',
  })
  @ApiOkResponse({ type: ReadinessResponse, description: 'PostgreSQL and Redis answer' })
  @ApiErrors('service_unavailable')
  async ready(): Promise<ReadinessResponse> {
    try {
      await this.health.check([() => this.postgres.pingCheck('postgres', { timeout: CHECK_TIMEOUT_MS }), () => this.redis.pingCheck('redis', CHECK_TIMEOUT_MS)]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // terminus answers its own 503 body; the route keeps the service's error envelope, naming each one down.
      const failed = (error.getResponse() as HealthCheckResult).error ?? {};
      const down = DEPENDENCIES.filter((name) => name in failed);
      throw new AppError('service_unavailable', `not ready: ${down.join(', ')} unreachable`, down.map((field) => ({ field, message: 'unreachable' })));
    }
    return { status: 'ok', checks: { postgres: 'up', redis: 'up' } };
  }
}
