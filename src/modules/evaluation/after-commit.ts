import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { QueueName } from '../../queues/queue-names.js';
import { EventCounters, type EventCounter } from '../metrics/event-counters.js';
import { enqueueDeliveries } from '../webhooks/enqueue-deliveries.js';

/**
 * What happens once an evaluation has committed, in one place: its webhook deliveries go to their queue and its
 * counts to the event metrics. Queueing never fails the evaluation: deliveries left unqueued (Redis down) stay open
 * in the outbox, and the webhooks sweeper queues them.
 */
@Injectable()
export class AfterCommit {
  constructor(
    @InjectQueue(QueueName.Webhooks) private readonly webhooksQueue: Queue,
    private readonly counters: EventCounters,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves once the deliveries are queued or the failure logged; never rejects. */
  async run(deliveryIds: string[], counts: Partial<Record<EventCounter, number>>, log: Record<string, unknown> = {}): Promise<void> {
    this.counters.add(counts);
    if (deliveryIds.length === 0) return;
    await enqueueDeliveries(this.webhooksQueue, deliveryIds).catch((error: Error) =>
      this.logger.warn({ ...log, err: error.message, delivery_ids: deliveryIds }, 'webhook deliveries stored but not queued; the sweeper will queue them'),
    );
  }
}
