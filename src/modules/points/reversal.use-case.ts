import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { customerTierStanding, tierName as tierNameOf, undoCompletions } from '../../engine/index.js';
import { EvaluationPipeline, EvaluationRepository, type CustomerKey } from '../evaluation/index.js';
import type { ReversalInput, ReversalResponse } from './dto/points.dto.js';
import { ReversalRepository } from './reversal.repository.js';

/**
 * Contract §13: a reversal takes back what a submission earned (a refund, fraud), on the customer locked as an
 * evaluation locks it. Its events are found by transaction id in the month the key names; the points they credited
 * leave the balance (as far as it goes) and lifetime_points; each completion they caused is undone by the engine
 * (undoCompletions), freeing room under the caps. Goal progress, notifications, offers and tags stay, and so does the
 * tier under lifetime (docs/points.md says why); under a period policy the tier is the one the credits left give (§17).
 */
@Injectable()
export class ReversalUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly customers: EvaluationRepository,
    private readonly reversals: ReversalRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  reverse(tenant: Tenant, key: CustomerKey, input: ReversalInput, requestId?: string): Promise<ReversalResponse> {
    const { transaction_id: transactionId } = input;
    return this.pipeline.withCustomerLocked(
      tenant.organizationId,
      key,
      async (customer, { uow, commitWith }) => {
        const id = customer.snapshot.id;
        const [events, reversed] = await Promise.all([this.reversals.submission(uow, tenant.apiKeyId, transactionId), this.reversals.reversed(uow, tenant.apiKeyId, transactionId)]);
        if (events.length === 0 || events.some((e) => e.customer_id !== id)) throw AppError.notFound('transaction');
        if (reversed) throw new AppError('already_reversed', `transaction_id ${transactionId} has already been reversed`);
        if (events.some((e) => e.status === 'pending')) throw new AppError('not_processed_yet', `transaction_id ${transactionId} is still waiting in the queue; reverse it once processed`);

        const completed = events.flatMap((e) => (e.result?.completions ?? []).map((c) => ({ ...c, at: new Date(e.occurred_at).getTime() })));
        const eventIds = events.map((e) => String(e.id));
        const behaviorIds = [...new Set(completed.map((c) => c.behavior_id))];
        const [byCampaign, progress] = await Promise.all([this.reversals.credited(uow, eventIds), this.customers.progress(uow, [id], behaviorIds)]);
        const undone = undoCompletions(
          progress.get(id) ?? {},
          completed.map((c) => ({ behaviorId: c.behavior_id, at: c.at })),
        );
        const credited = [...byCampaign.values()].reduce((sum, p) => sum + p, 0);
        const taken = Math.min(credited, customer.snapshot.availablePoints);
        const campaigns = new Set([...byCampaign.keys(), ...completed.map((c) => c.campaign_id)]);
        const budgets = [...campaigns].map((c) => ({ campaign_id: c, completions: completed.filter((x) => x.campaign_id === c).length, points: byCampaign.get(c) ?? 0 }));
        // Under a period tier policy the credits taken back qualify no more: the answer says the tier they leave, and
        // the review sweeper writes it (with its history and webhook) within seconds.
        const rules = await this.pipeline.rulesAt(tenant.organizationId, customer.rulesVersion, uow);
        const reviewTier = rules.tierRules.policy.basis === 'period';
        const now = this.clock.now();
        const undoneCompletions = undone.which.map((i) => completed[i]).map((c) => ({ campaign_id: c.campaign_id, behavior_id: c.behavior_id, at: c.at }));
        const [row, facts] = await commitWith(
          Promise.all([
            this.reversals.reverse(uow, {
            organizationId: tenant.organizationId,
            apiKeyId: tenant.apiKeyId,
            transactionId,
            description: input.reason ?? null,
            customerId: id,
            externalId: customer.externalId,
            eventIds,
            credited,
            taken,
            achievements: undone.undone,
            progress: Object.entries(undone.progress).map(([behaviorId, state]) => ({ behavior_id: Number(behaviorId), state, achieved: state.achieved })),
            budgets,
            webhookId: randomUUID(),
            now: new Date(now).toISOString(),
            reviewTier,
          }),
            reviewTier ? this.customers.tierFacts(uow, [id], rules.tierRules.timeZone) : null,
            this.reversals.reverseAnalytics(uow, tenant.organizationId, id, eventIds, undoneCompletions),
          ]),
        );
        const tier = facts ? tierNameOf(rules, customerTierStanding(rules, { tierFacts: facts.get(id), tierFloorId: customer.snapshot.tierFloorId }, now).tierId) : row.tier;
        return {
          answer: {
            status: 'ok' as const,
            reversal: { id: String(row.id), transaction_id: transactionId, events: events.length, points: taken, achievements: undone.undone },
            user: { available_points: Number(row.available_points), lifetime_points: Number(row.lifetime_points), tier },
          },
          deliveryIds: (row.delivery_ids ?? []).map(String),
        };
      },
      requestId,
    );
  }
}
