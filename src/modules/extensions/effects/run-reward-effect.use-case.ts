import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import type { FlatValue } from '../../../engine/index.js';
import type { RewardEffectContext } from '../../../extension-api/kinds.js';
import { EventsJob, QueueName } from '../../../queues/queue-names.js';
import { MESSAGE_TYPES } from '../../campaigns/rules/rule-set.mapper.js';
import { CustomerTransactions } from '../../evaluation/customer-transactions.js';
import { EvaluationRepository } from '../../evaluation/evaluation.repository.js';
import type { EventKey } from '../../evaluation/event-keys.js';
import { newEventRows } from '../../evaluation/write-plan.js';
import { enqueueEvents } from '../../events/enqueue.js';
import { callExtension } from '../extension-call.js';
import { ExtensionRegistry } from '../extension-registry.js';
import { RewardEffectsRepository, type EffectRow } from './reward-effects.repository.js';

/** How long one attempt of an effect may take before it counts as failed. */
export const EFFECT_TIMEOUT_MS = 30_000;
/**
 * Effects one process runs at once: each holds a pooled connection and a transaction for as long as it takes, and the
 * webhooks queue's concurrency (16) is meant for deliveries, which hold none while they wait on a remote server.
 */
export const EFFECT_CONCURRENCY = 4;

/** The effect's reward kind is not loaded in this process. */
class NotLoaded extends Error {}

/** What one attempt did. */
export interface EffectAttempt {
  effectId: string;
  kind: string;
  outcome: 'done' | 'failed' | 'dead' | 'skipped';
  error?: string;
}

/**
 * Runs one reward's after-commit effect (a job of the webhooks queue): the effect's row is claimed in a transaction
 * (locked; skipped when done, dead, or held by another worker), the reward kind's afterCommit runs in it under
 * EFFECT_TIMEOUT_MS, and the row is marked done with what the effect wrote, in one commit. A failure rolls that back and
 * records the attempt: retrying, or dead after the last one. Events the effect submitted are queued once committed.
 */
@Injectable()
export class RunRewardEffect {
  constructor(
    private readonly transactions: CustomerTransactions,
    private readonly effects: RewardEffectsRepository,
    private readonly events: EvaluationRepository,
    private readonly registry: ExtensionRegistry,
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Events) private readonly eventsQueue: Queue,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private readonly slots = new Slots(EFFECT_CONCURRENCY);

  async execute(effectId: string, attempt: number, last: boolean): Promise<EffectAttempt> {
    return this.slots.run(() => this.attempt(effectId, attempt, last));
  }

  private async attempt(effectId: string, attempt: number, last: boolean): Promise<EffectAttempt> {
    const submitted: Array<EventKey & { customerId: string; organizationId: number }> = [];
    // The first statement that failed: PostgreSQL refuses every later one in the transaction (an effect that caught
    // the error would otherwise be reported as "current transaction is aborted").
    const failed: { error?: unknown } = {};
    let kind = 'unknown';
    try {
      const ran = await this.transactions.run(null, async (tx) => {
        const effect = await this.effects.claim(tx.uow, effectId);
        if (!effect) return false;
        kind = effect.kind;
        const found = this.registry.effects().get(effect.kind);
        if (!found) throw new NotLoaded(`no reward kind "${effect.kind}" with an after-commit effect is loaded in this worker`);
        const ctx = this.context(tx.uow, effect, attempt, submitted, failed);
        const what = `reward kind "${effect.kind}" (${found.source})`;
        await callExtension(what, EFFECT_TIMEOUT_MS, () => found.handler.afterCommit!(ctx));
        await tx.commitWith(this.effects.done(tx.uow, effect.id)).catch((error: unknown) => {
          throw failed.error ? new Error(`${what} failed: ${(failed.error as Error).message}`) : error;
        });
        return true;
      });
      if (!ran) return { effectId, kind, outcome: 'skipped' };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A worker without the extension (EXTENSIONS not set on it, a rolling deploy) does not use up the effect's
      // attempts: the effect stays open, and the sweeper queues it again for a worker that has it.
      if (error instanceof NotLoaded) return { effectId, kind, outcome: 'failed', error: message };
      await this.effects.failed(this.db, effectId, message, last);
      return { effectId, kind, outcome: last ? 'dead' : 'failed', error: message };
    }
    if (submitted.length) {
      await enqueueEvents(this.eventsQueue, submitted, EventsJob.Evaluate, 'effect').catch((error: Error) =>
        this.logger.warn({ effect_id: effectId, err: error.message }, 'events an effect submitted are stored but not queued; the sweeper will queue them'),
      );
    }
    return { effectId, kind, outcome: 'done' };
  }

  private context(
    uow: Parameters<RewardEffectsRepository['claim']>[0],
    effect: EffectRow,
    attempt: number,
    submitted: Array<EventKey & { customerId: string; organizationId: number }>,
    failed: { error?: unknown },
  ): RewardEffectContext {
    return {
      effectId: effect.id,
      attempt,
      payload: effect.payload,
      organizationId: effect.organization_id,
      customerId: effect.customer_id,
      campaignId: effect.campaign_id,
      behaviorId: effect.behavior_id,
      eventId: effect.event_id,
      query: <R>(sql: string, params?: unknown[]) =>
        uow.query<R>(sql, params).catch((error: unknown) => {
          failed.error ??= error;
          throw error;
        }),
      notify: async (creativeId, payload = {}) => {
        const creative = await this.effects.creative(uow, effect.organization_id, creativeId);
        if (!creative) throw new Error(`creative ${creativeId} is not a creative of the organization`);
        const action = MESSAGE_TYPES.has(creative.ad_type) ? 'message' : 'open_ad';
        const data = { action_type: action, url: creative.url, message: creative.message, payload: { ...creative.payload, ...payload } };
        await this.effects.notify(uow, effect, creativeId, creative.ad_type, data);
      },
      submitEvent: async (customerId, event) => {
        if (!(await this.effects.customerOf(uow, effect.organization_id, customerId))) throw new Error(`customer ${customerId} is not a customer of the organization`);
        const apiKeyId = await this.effects.apiKeyOf(uow, effect.event_id);
        if (apiKeyId === null) throw new Error(`the event ${effect.event_id} that awarded the effect is no longer stored`);
        const row = {
          organizationId: effect.organization_id,
          apiKeyId,
          customerId,
          userRef: customerId,
          source: 'v1_async' as const,
          // No transaction id: the event commits with the effect marked done, so only the attempt that succeeds stores it.
          transactionId: null,
          instance: { name: event.name, count: 1, attributes: { ...event.attributes } as Record<string, FlatValue>, context: {}, occurredAt: this.clock.now(), day: null },
          divisionId: null,
          campaignId: null,
          status: 'pending' as const,
          reason: null,
          result: null,
          pointsEarned: 0,
          requestId: null,
          qualify: false,
        };
        const [key] = await this.events.storePending(uow, newEventRows([row]));
        submitted.push({ ...key, customerId, organizationId: effect.organization_id });
      },
    };
  }
}

/** At most `size` runs at once in this process; the others wait their turn, first come first served. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}
