import { randomUUID } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import type { FlatValue } from '../../engine/index.js';
import type { RewardEffectContext } from '../../extension-api/kinds.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { MESSAGE_TYPES } from '../campaigns/index.js';
import { AfterCommit, CustomerTransactions, EvaluationRepository, newEventRows } from '../evaluation/index.js';
import type { EventKey } from '../evaluation/index.js';
import { enqueueEvents } from '../events/index.js';
import { callExtension, ExtensionFailures, ExtensionRegistry, pastDeadline } from '../registry/index.js';
import { RewardEffectsRepository, type EffectRow } from './reward-effects.repository.js';

/** How long one attempt of an effect may take before it counts as failed. */
export const EFFECT_TIMEOUT_MS = 30_000;
/**
 * Effects one process runs at once (the reward-effects queue's concurrency): each holds a pooled connection and a
 * transaction for as long as it takes.
 */
export const EFFECT_CONCURRENCY = 4;

/** The effect's reward kind is not loaded in this process. */
class NotLoaded extends Error {}

/** What one attempt's context gathers: the events it submitted and the deliveries of its notifications, queued once committed. */
interface Gathered {
  submitted: Array<EventKey & { customerId: string; organizationId: number }>;
  deliveryIds: string[];
  /**
   * The first statement that failed: PostgreSQL refuses every later one in the transaction (an effect that caught the
   * error would otherwise be reported as "current transaction is aborted").
   */
  failed: { error?: unknown };
  /** Statements of the effect sent and not answered yet: one still running at the deadline is cancelled. */
  inFlight: number;
}

/** What one attempt did. */
export interface EffectAttempt {
  effectId: string;
  kind: string;
  outcome: 'done' | 'failed' | 'dead' | 'skipped';
  error?: string;
}

/**
 * Runs one reward's after-commit effect (a job of the reward-effects queue): the effect's row is claimed in a
 * transaction (locked; skipped when done, dead, or held by another worker), the reward kind's afterCommit runs in it under
 * EFFECT_TIMEOUT_MS, and the row is marked done with what the effect wrote, in one commit. A failure rolls that back and
 * records the attempt: retrying, or dead after the last one. Past the deadline the effect's signal is aborted, its
 * statements are refused and one still running is cancelled, and the transaction is rolled back, never committed: the
 * attempt has failed, whatever the effect does after. Events the effect submitted and the webhook deliveries of its
 * notifications are queued once committed.
 */
@Injectable()
export class RunRewardEffect {
  constructor(
    private readonly transactions: CustomerTransactions,
    private readonly effects: RewardEffectsRepository,
    private readonly events: EvaluationRepository,
    private readonly registry: ExtensionRegistry,
    private readonly afterCommit: AfterCommit,
    private readonly failures: ExtensionFailures,
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Events) private readonly eventsQueue: Queue,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** How long one attempt may take (EFFECT_TIMEOUT_MS; a spec shortens it). */
  timeoutMs = EFFECT_TIMEOUT_MS;

  async execute(effectId: string, attempt: number, last: boolean): Promise<EffectAttempt> {
    const gathered: Gathered = { submitted: [], deliveryIds: [], failed: {}, inFlight: 0 };
    let kind = 'unknown';
    try {
      const ran = await this.transactions.run(null, async (tx) => {
        const [effect, backend] = await Promise.all([this.effects.claim(tx.uow, effectId), this.effects.backend(tx.uow)]);
        if (!effect) return false;
        kind = effect.kind;
        const found = this.registry.effects().get(effect.kind);
        if (!found) throw new NotLoaded(`no reward kind "${effect.kind}" with an after-commit effect is loaded in this worker`);
        const what = `reward kind "${effect.kind}" (${found.source})`;
        let signal: AbortSignal | undefined;
        try {
          const failed = (error: unknown, message: string) =>
            this.failures.record(effect.organization_id, [
              { kind: 'reward_kind', extension: effect.kind, source: found.source, call: 'afterCommit', at: `effect ${effect.id}`, message, error, campaignId: effect.campaign_id },
            ]);
          await callExtension(
            what,
            this.timeoutMs,
            (aborted) => {
              signal = aborted;
              return found.handler.afterCommit!(this.context(tx.uow, effect, attempt, gathered, aborted));
            },
            failed,
          );
        } catch (error) {
          // Past the deadline: a statement of the effect still running is cancelled before the transaction is rolled
          // back (the rollback would otherwise wait for it). The effect's later statements are refused (context).
          if (signal?.aborted && gathered.inFlight > 0) await this.effects.cancel(this.db, backend).catch(() => undefined);
          throw error;
        }
        await tx.commitWith(this.effects.done(tx.uow, effect.id)).catch((error: unknown) => {
          throw gathered.failed.error ? new Error(`${what} failed: ${(gathered.failed.error as Error).message}`) : error;
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
    if (gathered.submitted.length) {
      await enqueueEvents(this.eventsQueue, gathered.submitted, EventsJob.Evaluate, 'effect').catch((error: Error) =>
        this.logger.warn({ effect_id: effectId, err: error.message }, 'events an effect submitted are stored but not queued; the sweeper will queue them'),
      );
    }
    // Never rejects: deliveries left unqueued (Redis down) stay open, for the webhooks sweeper.
    await this.afterCommit.run({ deliveryIds: gathered.deliveryIds }, {}, { effect_id: effectId });
    return { effectId, kind, outcome: 'done' };
  }

  private context(uow: Parameters<RewardEffectsRepository['claim']>[0], effect: EffectRow, attempt: number, gathered: Gathered, signal: AbortSignal): RewardEffectContext {
    /** Every statement of the effect: refused once the deadline has passed, counted while in flight. */
    const send = async <T>(statement: () => Promise<T>): Promise<T> => {
      if (signal.aborted) throw pastDeadline(signal);
      gathered.inFlight += 1;
      try {
        return await statement();
      } catch (error) {
        gathered.failed.error ??= error;
        throw error;
      } finally {
        gathered.inFlight -= 1;
      }
    };
    return {
      effectId: effect.id,
      attempt,
      payload: effect.payload,
      organizationId: effect.organization_id,
      customerId: effect.customer_id,
      campaignId: effect.campaign_id,
      behaviorId: effect.behavior_id,
      eventId: effect.event_id,
      signal,
      query: <R>(sql: string, params?: unknown[]) => send(() => uow.query<R>(sql, params)),
      notify: async (creativeId, payload = {}) => {
        const creative = await send(() => this.effects.creative(uow, effect.organization_id, creativeId));
        if (!creative) throw new Error(`creative ${creativeId} is not a creative of the organization`);
        const action = MESSAGE_TYPES.has(creative.ad_type) ? 'message' : 'open_ad';
        const data = { action_type: action, url: creative.url, message: creative.message, payload: { ...creative.payload, ...payload } };
        const occurrence = { id: randomUUID(), createdAt: new Date(this.clock.now()).toISOString() };
        gathered.deliveryIds.push(...(await send(() => this.effects.notify(uow, effect, creativeId, creative.ad_type, data, occurrence))));
      },
      submitEvent: async (customerId, event) => {
        if (!(await send(() => this.effects.customerOf(uow, effect.organization_id, customerId)))) throw new Error(`customer ${customerId} is not a customer of the organization`);
        const apiKeyId = await send(() => this.effects.apiKeyOf(uow, effect.event_id));
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
        const [key] = await send(() => this.events.storePending(uow, newEventRows([row])));
        gathered.submitted.push({ ...key, customerId, organizationId: effect.organization_id });
      },
    };
  }
}
