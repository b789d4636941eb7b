import type { Queue } from 'bullmq';
import { WebhooksJob } from '../../queues/queue-names.js';

/** Attempts per delivery (the first included) and the first retry delay: 1 s, 2 s, 4 s, ... about 8.5 minutes in all. */
export const DELIVERY_ATTEMPTS = 10;
export const DELIVERY_BACKOFF_MS = 1000;

export interface DeliverJobData {
  deliveryId: string;
}

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: DELIVERY_ATTEMPTS, backoff: { type: 'exponential', delay: DELIVERY_BACKOFF_MS } };

/**
 * Queues outbox deliveries, one job each. The job id is the delivery's, so queueing a delivery whose job still
 * exists (waiting, delayed for a retry, or failed) adds nothing: the sweeper may queue the open ones again safely.
 */
export async function enqueueDeliveries(queue: Queue, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await queue.addBulk(
    deliveryIds.map((deliveryId) => ({ name: WebhooksJob.Deliver, data: { deliveryId } satisfies DeliverJobData, opts: { ...JOB_OPTIONS, jobId: `delivery-${deliveryId}` } })),
  );
}
