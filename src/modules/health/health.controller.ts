import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

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

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: RedisClient,
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
    const [postgres, redis] = await Promise.all([
      withTimeout(this.db.query('SELECT 1'), 2000).then(() => true, () => false),
      withTimeout(this.redis.ping(), 2000).then(() => true, () => false),
    ]);
    const down = [...(postgres ? [] : ['postgres']), ...(redis ? [] : ['redis'])];
    if (down.length) {
      throw new AppError('service_unavailable', `not ready: ${down.join(', ')} unreachable`, down.map((field) => ({ field, message: 'unreachable' })));
    }
    return { status: 'ok', checks: { postgres: 'up', redis: 'up' } };
  }
}
