/**
 * The acceptance ceiling of the V2 benchmark, run as a process of its own as the API is: a bare NestJS application
 * (Express, the same JSON body parser and limit as the API) with one route that does only what V2 ingestion cannot
 * avoid once it holds the events: group them per customer and `addBulk` one job each, with the service's own
 * `enqueueEvents` (same job names, options and id shape; event ids are a counter, as nothing is stored). No auth,
 * validation, request log, metrics or PostgreSQL. Env: PORT, REDIS_URL, QUEUE_PREFIX (its own). Prints "ready".
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Inject, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Queue } from 'bullmq';
import { enqueueEvents } from '../../src/modules/events/enqueue.js';
import { EventsJob, QueueName } from '../../src/queues/queue-names.js';

const QUEUE = 'BARE_QUEUE';
let lastId = 0;

interface Body {
  events: Array<{ user_id?: string; external_id?: string }>;
}

@Controller('events')
class BareController {
  constructor(@Inject(QUEUE) private readonly queue: Queue) {}

  @Post()
  @HttpCode(200)
  async send(@Body() body: Body): Promise<{ status: 'ok' }> {
    const events = body.events.map((e) => ({ id: String((lastId += 1)), customer_id: e.user_id ?? e.external_id ?? null }));
    await enqueueEvents(this.queue, events, EventsJob.Evaluate, 'bare');
    return { status: 'ok' };
  }
}

@Module({
  controllers: [BareController],
  providers: [
    {
      provide: QUEUE,
      useFactory: () =>
        new Queue(QueueName.Events, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }, prefix: process.env.QUEUE_PREFIX }),
    },
  ],
})
class BareModule {}

const app = await NestFactory.create<NestExpressApplication>(BareModule, { bodyParser: false, logger: ['error', 'warn'] });
app.useBodyParser('json', { limit: '1mb' });
app.set('etag', false);
await app.listen(Number(process.env.PORT ?? 3902), '127.0.0.1');
process.stdout.write('ready\n');
