import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ example: { postgres: 'up', redis: 'up' }, required: false }) checks?: Record<string, 'up'>;
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
  @ApiOperation({ summary: 'The process is up' })
  @ApiOkResponse({ type: HealthResponse })
  live(): HealthResponse {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'PostgreSQL and Redis answer; 503 service_unavailable names the ones that do not' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiErrors('service_unavailable')
  async ready(): Promise<HealthResponse> {
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
