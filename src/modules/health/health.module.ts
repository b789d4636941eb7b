import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { RedisHealthIndicator } from './redis.health.js';

/** GET /health/live and /health/ready, with @nestjs/terminus's checks (TypeORM's ping, and Redis's PING). */
@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController], providers: [RedisHealthIndicator] })
export class HealthModule {}
