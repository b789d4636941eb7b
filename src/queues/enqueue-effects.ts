import type { Queue } from 'bullmq';
import { RewardEffectsJob } from './queue-names.js';

/** Attempts per effect (the first included) and the first retry delay, as a webhook delivery's: about 8.5 minutes in all. */
export const EFFECT_ATTEMPTS = 10;
export const EFFECT_BACKOFF_MS = 1000;

export interface EffectJobData {
  effectId: string;
}

const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 10_000, attempts: EFFECT_ATTEMPTS, backoff: { type: 'exponential', delay: EFFECT_BACKOFF_MS } };

/**
 * Queues rewards' after-commit effects (the outbox reward_effects), one job each on the reward-effects queue. The job id
 * is the effect's: queueing one whose job still exists (waiting, delayed for a retry, or failed) adds nothing.
 */
export async function enqueueEffects(queue: Queue, effectIds: string[]): Promise<void> {
  if (effectIds.length === 0) return;
  await queue.addBulk(effectIds.map((effectId) => ({ name: RewardEffectsJob.Run, data: { effectId } satisfies EffectJobData, opts: { ...JOB_OPTIONS, jobId: `effect-${effectId}` } })));
}
