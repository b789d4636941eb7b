import type { Tenant } from '../../../src/common/http/request-context.js';
import { evaluate, type EventInstance } from '../../../src/engine/index.js';
import type { CustomerEvaluation, Decision, Loaded } from '../../../src/modules/evaluation/evaluation.pipeline.js';
import type { CustomerKey, Written } from '../../../src/modules/evaluation/evaluation.repository.js';
import { eventOutcome } from '../../../src/modules/evaluation/event-outcome.js';
import { involvedBehaviors } from '../../../src/modules/evaluation/involved-behaviors.js';
import { planWrite, type WritePlan } from '../../../src/modules/evaluation/write-plan.js';
import type { V1EventBody } from '../../../src/modules/events/dto/v1-event.dto.js';
import type { V1Request } from '../../../src/modules/events/v1-events.use-case.js';
import { eventRow } from './plans.js';

/** A synchronous V1 request of the tenant for the customer, as the controller would hand it to V1EventsUseCase. */
export function v1Request(tenant: Tenant, customer: CustomerKey, events: Record<string, unknown>, body: Omit<V1EventBody, 'events'> = {}): V1Request {
  return { tenant, customer, campaign: null, body: { events, ...body }, checkOnly: false, async: false, explain: false, requestId: 'medium-spec' };
}

export interface EngineAnswer {
  points: number;
  written: Written | null;
}

/**
 * One event named `name` evaluated by the engine on what the pipeline loaded, written as V1 writes it. `change`
 * may alter the plan before it is written (to make the write fail) or throw (a decide() that fails).
 */
export function engineEvaluation(tenant: Tenant, customer: CustomerKey, name: string, change: (plan: WritePlan, loaded: Loaded) => void | Promise<void> = () => undefined): CustomerEvaluation<EngineAnswer> {
  return {
    organizationId: tenant.organizationId,
    customer,
    write: true,
    involved: (rules) => involvedBehaviors(rules, [instance(name, 0)], null),
    decide: async (loaded): Promise<Decision<EngineAnswer>> => {
      const events = [instance(name, loaded.now)];
      const result = evaluate({ rules: loaded.rules, customer: loaded.customer.snapshot, progress: loaded.progress, events, now: loaded.now, multiOrgEnabled: false });
      const outcome = eventOutcome(result, 0, false);
      const row = eventRow(tenant, loaded.customer.snapshot.id, {
        name,
        occurred_at: new Date(loaded.now).toISOString(),
        status: outcome.status,
        reason: outcome.reason,
        result: outcome.result,
        points: outcome.pointsEarned,
      });
      const plan = planWrite({ insert: [row] }, [{ organizationId: tenant.organizationId, before: loaded.customer.snapshot, result, firstIndex: 0, webhooks: [] }]);
      await change(plan, loaded);
      return { plan, answer: (written) => ({ points: outcome.pointsEarned, written }) };
    },
  };
}

function instance(name: string, at: number): EventInstance {
  return { name, count: 1, attributes: {}, context: {}, occurredAt: at, day: null };
}
