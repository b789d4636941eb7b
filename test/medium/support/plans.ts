import type { Tenant } from '../../../src/common/http/request-context.js';
import { emptyPlan, type NewEventRow, type WritePlan } from '../../../src/modules/evaluation/write-plan.js';

/** A new event row of the tenant's key for the customer, processed with `points` (pending when told). */
export function eventRow(tenant: Tenant, customerId: string, extra: Partial<NewEventRow> = {}): NewEventRow {
  return {
    organization_id: tenant.organizationId,
    api_key_id: tenant.apiKeyId,
    customer_id: customerId,
    user_ref: 'ref',
    source: 'v1',
    transaction_id: null,
    name: 'purchase',
    count: 1,
    attributes: {},
    context: {},
    division_id: null,
    campaign_id: null,
    occurred_at: '2026-03-02T10:00:00.000Z',
    status: 'processed',
    reason: null,
    result: null,
    points: 0,
    request_id: null,
    qualify: false,
    ...extra,
  };
}

/** A plan that inserts one event crediting `amount` to a customer who had `before` points, with its progress row. */
export function creditPlan(tenant: Tenant, customerId: string, behaviorId: number, campaignId: number, amount: number, before = 0, transactionId: string | null = null): WritePlan {
  const state = { achieved: 1, completions: [], window: null, goals: {} };
  return {
    ...emptyPlan({ insert: [] }),
    events: { insert: [eventRow(tenant, customerId, { transaction_id: transactionId, points: amount, campaign_id: campaignId })] },
    progress: [{ customer_id: customerId, behavior_id: behaviorId, state, achieved: 1 }],
    customers: [
      { id: customerId, available_points: before + amount, lifetime_points: before + amount, tier_id: null, tier_review_at: null, tags: ['buyer'], qualified_campaign_ids: [campaignId], completed_campaign_ids: [] },
    ],
    credits: [{ idx: 0, organization_id: tenant.organizationId, customer_id: customerId, amount, reason: 'behavior', source: { campaign_id: campaignId, behavior_id: behaviorId }, earned_at: '2026-03-02T10:00:00.000Z' }],
  };
}
