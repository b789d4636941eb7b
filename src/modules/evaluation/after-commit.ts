import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import type { ExtensionFailureRecord } from '../../engine/index.js';
import { ExtensionFailures } from '../registry/index.js';
import { QueueName } from '../../queues/queue-names.js';
import { EventCounters, type EventCounter } from '../metrics/index.js';
import { enqueueEffects } from '../../queues/enqueue-effects.js';
import { enqueueDeliveries } from '../webhooks/index.js';

/** What a committed write left to send: webhook deliveries and rewards' after-commit effects (outbox ids). */
export interface Outbox {
  deliveryIds: string[];
  effectIds?: string[];
}

/** Extensions' failures an evaluation met in an organization, with what the log line says of where. */
export interface MetFailures {
  organizationId: number;
  failures: ExtensionFailureRecord[];
  log?: Record<string, unknown>;
}

/**
 * What happens once an evaluation has committed, in one place: its webhook deliveries go to the webhooks queue and
 * its rewards' effects to the reward-effects queue, its counts to the event metrics and the extensions' failures it
 * met to ExtensionFailures (once: a budget retry's first run counts nothing). Queueing never fails the evaluation:
 * what is left unqueued (Redis down) stays open in its outbox, and that queue's sweeper queues it.
 */
@Injectable()
export class AfterCommit {
  constructor(
    @InjectQueue(QueueName.Webhooks) private readonly webhooksQueue: Queue,
    @InjectQueue(QueueName.RewardEffects) private readonly effectsQueue: Queue,
    private readonly counters: EventCounters,
    private readonly failures: ExtensionFailures,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves once the deliveries are queued or the failure logged; never rejects. */
  async run({ deliveryIds, effectIds = [] }: Outbox, counts: Partial<Record<EventCounter, number>>, log: Record<string, unknown> = {}, met: MetFailures[] = []): Promise<void> {
    this.counters.add(counts);
    for (const m of met) this.failures.record(m.organizationId, m.failures, { ...log, ...m.log });
    if (deliveryIds.length === 0 && effectIds.length === 0) return;
    await Promise.all([
      deliveryIds.length === 0
        ? undefined
        : enqueueDeliveries(this.webhooksQueue, deliveryIds).catch((error: Error) =>
            this.logger.warn({ ...log, err: error.message, delivery_ids: deliveryIds }, 'webhook deliveries stored but not queued; the sweeper will queue them'),
          ),
      effectIds.length === 0
        ? undefined
        : enqueueEffects(this.effectsQueue, effectIds).catch((error: Error) =>
            this.logger.warn({ ...log, err: error.message, effect_ids: effectIds }, 'reward effects stored but not queued; the sweeper will queue them'),
          ),
    ]);
  }
}
