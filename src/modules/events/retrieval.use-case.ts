import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { behaviorView, type CompiledBehavior } from '../../engine/index.js';
import { RulesCacheService } from '../campaigns/rules/rules-cache.service.js';
import type { RetrievalResponse } from './dto/v1-event.dto.js';
import { CustomerKey, EventsRepository } from './events.repository.js';

/** `division_ids=1,2` or `division_ids[]=1&division_ids[]=2` as ids; anything that is not an id is reported. */
function parseDivisionIds(raw: string | string[] | undefined): string[] | null {
  if (raw === undefined) return null;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Retrieval (contract §10): available points and per-behavior progress of the live campaigns. */
@Injectable()
export class RetrievalUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: EventsRepository,
    private readonly rulesCache: RulesCacheService,
  ) {}

  async execute(tenant: Tenant, key: CustomerKey, divisionIdsQuery: string | string[] | undefined): Promise<RetrievalResponse> {
    const runner = this.db.createQueryRunner();
    try {
      return await this.read(runner.manager, tenant, key, divisionIdsQuery);
    } finally {
      await runner.release();
    }
  }

  private async read(em: EntityManager, tenant: Tenant, key: CustomerKey, divisionIdsQuery: string | string[] | undefined): Promise<RetrievalResponse> {
    const hint = await this.rulesCache.peek(tenant.organizationId)?.catch(() => null);
    const guess = hint ? [...hint.behaviors.keys()] : [];
    const customer = await this.repository.customer(em, tenant.organizationId, key, false, guess);
    if (!customer) throw AppError.notFound('user');
    const rules = await this.rulesCache.get(tenant.organizationId, customer.rulesVersion);
    let divisions: Set<number> | null = null;
    const requested = tenant.multiOrgEnabled ? parseDivisionIds(divisionIdsQuery) : null;
    if (requested) {
      const invalid = requested.filter((v) => !/^\d{1,10}$/.test(v) || !rules.divisionAncestors[Number(v)]);
      if (invalid.length) throw AppError.validation('division_ids', `are not divisions of this organization: ${invalid.join(', ')}`);
      divisions = new Set(requested.map(Number));
    }
    const behaviors: CompiledBehavior[] = [...rules.campaigns.values()]
      .filter((c) => divisions === null || (c.rule.divisionId !== null && divisions.has(c.rule.divisionId)))
      .flatMap((c) => c.behaviors);
    const missing = behaviors.map((b) => b.rule.id).filter((id) => !customer.progressOf.includes(id));
    const progress = missing.length ? { ...customer.progress, ...(await this.repository.progress(em, customer.snapshot.id, missing)) } : customer.progress;
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
    return { status: 'ok', available_points: customer.snapshot.availablePoints, behaviors: out };
  }
}
