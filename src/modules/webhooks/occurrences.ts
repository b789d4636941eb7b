import { randomUUID } from 'node:crypto';
import { tierDirection, type CompiledRules, type CustomerSnapshot, type EvaluationResult } from '../../engine/index.js';

export const WEBHOOK_EVENT_TYPES = [
  'notification.created',
  'behavior.completed',
  'tier.changed',
  'points.credited',
  'points.debited',
  'points.expired',
  'points.reversed',
  'campaign.budget_exhausted',
  'user.erased',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * One webhook event an evaluation produced, before fan-out: the write statement makes one delivery of it per
 * subscribed webhook of the organization. `id` is the payload id, the same for every webhook and every attempt.
 */
export interface WebhookOccurrence {
  /** The submitted instance (index in the evaluation's event list) it belongs to. */
  eventIndex: number;
  id: string;
  type: WebhookEventType;
  created_at: string;
  /**
   * notification.created only: the index of its notification in the customer's result.notifications; the statement
   * adds the stored notification's id to `data`.
   */
  notificationIndex: number | null;
  data: Record<string, unknown>;
}

/**
 * The webhook events of one customer's evaluation (docs/webhooks.md describes each `data`): one notification.created per
 * notification, one behavior.completed per completion, one points.credited per event that earned points (with the
 * balances after it), and one tier.changed per move of the tier (its change's steps); only those of the `subscribed`
 * types (none when the organization has no webhook: nothing is built).
 */
export function webhookOccurrences(
  rules: CompiledRules,
  before: CustomerSnapshot,
  result: EvaluationResult,
  externalId: string,
  subscribed: ReadonlySet<WebhookEventType>,
  now: number,
): WebhookOccurrence[] {
  if (subscribed.size === 0) return [];
  const who = { user_id: result.customer.id, external_id: externalId };
  const createdAt = new Date(now).toISOString();
  const make = (eventIndex: number, type: WebhookEventType, data: Record<string, unknown>, notificationIndex: number | null = null): WebhookOccurrence => ({
    eventIndex,
    id: randomUUID(),
    type,
    created_at: createdAt,
    notificationIndex,
    data,
  });
  const out: WebhookOccurrence[] = [];
  result.notifications.forEach((n, i) => {
    out.push(make(n.eventIndex, 'notification.created', { type: n.type, campaign_id: n.campaignId, behavior_name: n.behaviorName, data: n.data, ...who }, i));
  });
  for (const c of result.completions) {
    out.push(
      make(c.eventIndex, 'behavior.completed', {
        ...who,
        campaign_id: c.campaignId,
        behavior_id: c.behaviorId,
        behavior_name: rules.behaviors.get(c.behaviorId)?.rule.name ?? null,
        achieved: c.achieved,
        completed_at: new Date(c.at).toISOString(),
      }),
    );
  }
  // Credits in the order earned; balances run from the customer's before the evaluation.
  let available = before.availablePoints;
  let lifetime = before.lifetimePoints;
  const byEvent = new Map<number, { credits: Array<Record<string, unknown>>; points: number; available: number; lifetime: number }>();
  for (const c of result.credits) {
    if (c.amount === 0) continue;
    available += c.amount;
    lifetime += c.amount;
    const entry = byEvent.get(c.eventIndex) ?? { credits: [], points: 0, available, lifetime };
    entry.points += c.amount;
    entry.available = available;
    entry.lifetime = lifetime;
    entry.credits.push({ amount: c.amount, reason: c.reason, campaign_id: c.campaignId, behavior_id: c.behaviorId, goal_id: c.goalId ?? null, offer_id: c.offerId ?? null });
    byEvent.set(c.eventIndex, entry);
  }
  for (const [eventIndex, entry] of byEvent) {
    out.push(
      make(eventIndex, 'points.credited', {
        ...who,
        points: entry.points,
        available_points: entry.available,
        lifetime_points: entry.lifetime,
        credits: entry.credits,
      }),
    );
  }
  // One per move of the tier's path (a request passing through two tiers, a back-dated event's upgrade and reviews).
  const eventIndex = result.credits.at(-1)?.eventIndex ?? result.completions.at(-1)?.eventIndex ?? 0;
  const ref = (id: number | null) => (id === null ? null : { id, name: rules.tiers.find((t) => t.id === id)?.name ?? null });
  for (const step of result.tierChange?.steps ?? []) {
    out.push(
      make(eventIndex, 'tier.changed', {
        ...who,
        from_tier: ref(step.fromTierId),
        to_tier: ref(step.toTierId),
        direction: tierDirection(rules, step.fromTierId, step.toTierId),
        reason: step.reason,
        lifetime_points: result.customer.lifetimePoints,
      }),
    );
  }
  return out.filter((o) => subscribed.has(o.type));
}
