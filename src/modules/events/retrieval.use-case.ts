import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { isCanonicalInteger } from '../../common/validation/canonical-integer.js';
import { behaviorApplies, behaviorView, experimentGroup, HOLDOUT, type CompiledBehavior, type CompiledRules, type CustomerSnapshot, type ProgressMap } from '../../engine/index.js';
import { EvaluationPipeline } from '../evaluation/index.js';
import type { CustomerKey } from '../evaluation/index.js';
import type { RetrievalResponse } from './dto/retrieval.dto.js';

/**
 * `division_ids=1,2` or `division_ids[]=1&division_ids[]=2` as ids (spaces around each allowed); anything that is not
 * an id in canonical decimal (`01`, `1.0`, `+1`, an empty item) is reported.
 */
function parseDivisionIds(raw: string | string[] | undefined): string[] | null {
  if (raw === undefined) return null;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
}

/** Retrieval (contract §10): available points and per-behavior progress of the live campaigns. */
@Injectable()
export class RetrievalUseCase {
  constructor(private readonly pipeline: EvaluationPipeline) {}

  execute(tenant: Tenant, key: CustomerKey, divisionIdsQuery: string | string[] | undefined): Promise<RetrievalResponse> {
    return this.pipeline.forCustomer({
      organizationId: tenant.organizationId,
      customer: key,
      write: false,
      involved: (rules) => [...rules.behaviors.keys()],
      decide: ({ rules, customer, progress }) => {
        const response = this.view(rules, customer.snapshot, progress, tenant.multiOrgEnabled ? parseDivisionIds(divisionIdsQuery) : null);
        return { store: null, answer: () => response };
      },
    });
  }

  private view(rules: CompiledRules, customer: CustomerSnapshot, progress: ProgressMap, requested: string[] | null): RetrievalResponse {
    let divisions: Set<number> | null = null;
    if (requested) {
      const invalid = requested.filter((v) => !isCanonicalInteger(v) || !rules.divisionAncestors[Number(v)]);
      if (invalid.length) throw AppError.validation('division_ids', `are not divisions of this organization: ${invalid.map((v) => v || '""').join(', ')}`);
      divisions = new Set(requested.map(Number));
    }
    // An experiment's holdout does not see the campaign; a variant sees its own behaviors and those of every variant (§20).
    const behaviors: CompiledBehavior[] = [...rules.campaigns.values()]
      .filter((c) => divisions === null || (c.rule.divisionId !== null && divisions.has(c.rule.divisionId)))
      .flatMap((c) => {
        const group = experimentGroup(c.rule, customer);
        return group === HOLDOUT ? [] : c.behaviors.filter((b) => behaviorApplies(b.rule, group));
      });
    const out: RetrievalResponse['behaviors'] = {};
    for (const behavior of behaviors) {
      const view = behaviorView(behavior, progress[behavior.rule.id]);
      out[behavior.rule.name] = {
        event_name: view.event_name,
        type: view.type,
        max_times_repeatable: view.max_times_repeatable,
        max_times_repeatable_per_period: view.max_times_repeatable_per_period,
        min_time_between_events: view.min_time_between_events,
        consecutive: view.consecutive,
        achieved: view.achieved,
        current_count: view.current_count,
        total_count: view.total_count,
        goals: view.goals,
      };
    }
    return { status: 'ok', available_points: customer.availablePoints, behaviors: out };
  }
}
