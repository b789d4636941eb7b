import { getQueueToken, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, ModuleRef } from '@nestjs/core';
import { Queue } from 'bullmq';
import { LOGGER, type Logger } from '../common/logging/logger.js';
import { QueueName } from './queue-names.js';

const REPEAT_MS = 30_000;

/**
 * Sends queue and worker errors to the JSON log (BullMQ writes them to console.error when nobody listens), once per
 * distinct message every 30 seconds, so a Redis outage is visible without flooding the log. The same for the errors
 * of the workers' processors (worker process only), once they exist: a Redis outage, or a job whose keys Redis lost.
 */
@Injectable()
export class QueueErrorLogger implements OnModuleInit, OnApplicationBootstrap {
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly discovery: DiscoveryService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    for (const name of Object.values(QueueName)) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      queue.on('error', (error: Error) => this.log(name, error));
    }
  }

  onApplicationBootstrap(): void {
    for (const { instance } of this.discovery.getProviders()) {
      if (instance instanceof WorkerHost) instance.worker.on('error', (error: Error) => this.log(instance.worker.name, error));
    }
  }

  private log(queue: string, error: Error): void {
    const key = `${queue}:${error.message}`;
    const now = Date.now();
    if ((this.lastLogged.get(key) ?? 0) > now - REPEAT_MS) return;
    // Messages may name a job (BullMQ's lock errors do): forget the ones past their window, or the map grows per job.
    for (const [seen, at] of this.lastLogged) if (at <= now - REPEAT_MS) this.lastLogged.delete(seen);
    this.lastLogged.set(key, now);
    this.logger.warn({ queue, err: error.message }, 'queue error');
  }
}

/**
 * BullMQ's Queue with an error listener from birth: a connection error raised while Nest is still wiring modules
 * (before QueueErrorLogger attaches) would otherwise go to console.error. QueueErrorLogger logs the ones after it.
 */
export class ListenedQueue extends Queue {
  constructor(...args: ConstructorParameters<typeof Queue>) {
    super(...args);
    this.on('error', () => undefined);
  }

  // Adding jobs waits for Redis at most ADD_TIMEOUT_MS: with Redis down, BullMQ would otherwise wait for the reconnect,
  // holding the request (or the transaction) that adds them. Every caller has stored its rows first; a sweeper queues
  // them later.
  override add(...args: Parameters<Queue['add']>): ReturnType<Queue['add']> {
    return bounded(super.add(...args));
  }

  override addBulk(...args: Parameters<Queue['addBulk']>): ReturnType<Queue['addBulk']> {
    return bounded(super.addBulk(...args));
  }
}

/** How long adding jobs may wait for Redis before the caller gets an error. */
export const ADD_TIMEOUT_MS = 2_000;

export function bounded<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined); // settled after the timeout: nobody waits for it any more
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not take the jobs within ${ADD_TIMEOUT_MS} ms`)), ADD_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
