import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ownedRows } from '../../../common/database/owned-lists.js';
import { OwnedWrites } from '../../../common/database/owned-writes.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import { AppError, ErrorDetail } from '../../../common/errors/app-error.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { Behavior, OUTCOME_BOOKKEEPING, type StoredGoalGroup, type StoredOutcome } from '../../../database/entities/behavior.entity.js';
import type { Campaign, StoredExperiment } from '../../../database/entities/campaign.entity.js';
import { ConfigChangesService } from '../../audit/index.js';
import { CampaignsService } from '../campaigns.service.js';
import type { BehaviorInput, OutcomeInput } from './behavior-input.js';
import { checkBehavior, CheckedBehavior, checkReferences, checkVariant, referencesNamed } from './behavior-validation.js';
import { behaviorView, TierIds } from './behavior.view.js';
import type { BehaviorView } from './dto/behavior-view.dto.js';
import { findOwned } from '../../../common/database/find-owned.js';
import { holdLiveGoals, liveGoalCount } from '../live-goals.repository.js';
import { extensionChecks } from '../../../common/validation/extension-checks.js';
import { findStaleValues, keptStaleValues } from '../../registry/index.js';
import { behaviorsPerCampaignProblem, goalCount, liveGoalsProblem } from './behavior-limits.js';

type Submitted = Record<string, unknown>;

const UNIQUE = uniqueViolation({
  behaviors_name: { field: 'behavior.name', message: 'is already used by another behavior of this organization' },
});

const invalid = (c: CheckedBehavior) => Object.keys(c.errors).length > 0;

/** The validation error of a batch or of one behavior: every problem in details, each behavior echoed with its errors. */
function problemsError(summary: string, details: ErrorDetail[], extra: Record<string, unknown>): AppError {
  const shown = details.slice(0, 5).map((d) => `${d.field} ${d.message}`);
  if (details.length > shown.length) shown.push(`and ${details.length - shown.length} more`);
  return new AppError('validation', `${summary}: ${shown.join('; ')}`, details, extra);
}

/** A limit of contract §18 passed: the message names the limit, its value and its setting. */
function limitError(field: string, message: string): AppError {
  return new AppError('validation', message, [{ field, message }]);
}

function outcomeKey(o: OutcomeInput | StoredOutcome): string {
  if ('deal' in o && o.deal) return `deal:${o.deal.id}`;
  if ('ad_unit' in o && o.ad_unit) return `ad_unit:${o.ad_unit.id}`;
  if ('event' in o && o.event) return `event:${o.event.by}:${o.event.name}`;
  if ('tier' in o && o.tier) return `tier:${o.tier.name.toLowerCase()}`;
  if ('points' in o && typeof o.points === 'number') return `points:${o.points}`;
  // An extension's reward: its kind and its arguments, members in one order whatever order they were sent in.
  const [kind, args] = Object.entries(o).find(([key]) => !OUTCOME_BOOKKEEPING.includes(key)) ?? [];
  const sorted = (_key: string, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value;
  return `${kind}:${JSON.stringify(args, sorted)}`;
}

/** A stored behavior in the request form (no ids, no timestamps): what a partial update starts from. */
function storedInput(b: Behavior): Submitted {
  return {
    name: b.name,
    tags: b.tags,
    points: b.points,
    data: b.data,
    goal_groups: b.goalGroups.map((g) => ({
      ...(g.goal_count === null ? {} : { goal_count: g.goal_count }),
      goals: g.goals.map(({ id: _id, ...achievement }) => ({ achievement })),
    })),
    outcome_config: b.outcomeConfig.map(({ id: _id, created_at: _created, updated_at: _updated, ...outcome }) => outcome),
    variant: b.variant,
  };
}

@Injectable()
export class BehaviorsService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, {
    objectType: 'behavior',
    view: async (b: Behavior, em: EntityManager) => behaviorView(b, await this.tierIds(em, b.organizationId, [b])),
    unique: UNIQUE,
  });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly campaigns: CampaignsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One transaction: every behavior is stored, or none is and each is answered with its errors. */
  createBatch(tenant: Tenant, campaignId: number, submitted: Submitted[]): Promise<BehaviorView[]> {
    return this.db.transaction(async (em) => {
      const campaign = await this.campaigns.find(em, tenant, { id: campaignId }, true);
      const checked = submitted.map((behavior) => checkBehavior(behavior));
      await this.checkAgainstDatabase(em, tenant, campaign.id, checked, null);
      if (checked.some(invalid)) {
        const details = checked.flatMap((c, i) => Object.entries(c.errors).map(([field, message]) => ({ field: `behaviors.${i}.${field}`, message })));
        const count = checked.filter(invalid).length;
        throw problemsError(`${count} of ${checked.length} behaviors are invalid and none was stored`, details, {
          behaviors: submitted.map((behavior, i) => ({ ...behavior, errors: checked[i].errors })),
        });
      }
      await this.checkCampaignLimits(em, tenant, campaign, checked.map((c) => c.input));
      const stored: Behavior[] = [];
      for (const { input } of checked) {
        const behavior = em.create(Behavior, {
          organizationId: tenant.organizationId,
          campaignId: campaign.id,
          ...(await this.storedFields(em, input, null)),
        });
        await em.save(behavior).catch(UNIQUE);
        stored.push(behavior);
      }
      const tierIds = await this.tierIds(em, tenant.organizationId, stored);
      const views = stored.map((b) => behaviorView(b, tierIds));
      for (const view of views) await this.changes.record(em, tenant, { action: 'create', objectType: 'behavior', objectId: view.id, after: view });
      return views;
    });
  }

  async list(tenant: Tenant, campaignId: number): Promise<BehaviorView[]> {
    const campaign = await this.campaigns.find(this.db.manager, tenant, { id: campaignId });
    const behaviors = await ownedRows(this.db.manager, Behavior, { campaignId: campaign.id }, tenant.organizationId);
    const tierIds = await this.tierIds(this.db.manager, tenant.organizationId, behaviors);
    return behaviors.map((b) => behaviorView(b, tierIds));
  }

  async get(tenant: Tenant, id: number): Promise<BehaviorView> {
    const behavior = await this.find(this.db.manager, tenant, id);
    return behaviorView(behavior, await this.tierIds(this.db.manager, tenant.organizationId, [behavior]));
  }

  /**
   * A partial update: each top-level member sent (name, tags, points, data, goal_groups, outcome_config) replaces the
   * stored one whole; members absent keep their values. The result is checked as a whole behavior, as in a batch.
   * Goals keep their ids (and customers their progress) by name, outcomes by what they award. A stored value its
   * extension's class now refuses (written under an earlier version of it, decision 0027) may be kept: an outcome or a
   * criterion sent equal to one of them (members in any order) is taken as stored, unchecked; a changed one is checked.
   */
  update(tenant: Tenant, id: number, submitted: Submitted): Promise<BehaviorView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, id, true), async (behavior, em) => {
      const stale = findStaleValues(
        [{ object_type: 'behavior', object_id: behavior.id, organization_id: behavior.organizationId, outcome_config: behavior.outcomeConfig, goal_groups: behavior.goalGroups }],
        extensionChecks(),
      );
      const checked = checkBehavior({ ...storedInput(behavior), ...submitted }, keptStaleValues(stale));
      // Outcomes kept as stored are not checked again: one naming an offer deleted since is skipped when it fires, and
      // must not block an edit of the points.
      await this.checkAgainstDatabase(em, tenant, behavior.campaignId, [checked], behavior.id, submitted.outcome_config !== undefined);
      if (invalid(checked)) {
        const details = Object.entries(checked.errors).map(([field, message]) => ({ field: `behavior.${field}`, message }));
        throw problemsError('the behavior is invalid', details, { behavior: { ...submitted, errors: checked.errors } });
      }
      await holdLiveGoals(em, tenant.organizationId);
      const [campaign]: Array<{ status: string }> = await em.query(`SELECT status FROM campaigns WHERE id = $1`, [behavior.campaignId]);
      if (campaign?.status === 'live') {
        const added = goalCount(checked.input.goal_groups) - goalCount(behavior.goalGroups);
        const problem = liveGoalsProblem(await liveGoalCount(em, tenant.organizationId), added);
        if (problem) throw limitError('behavior.goal_groups', problem);
      }
      Object.assign(behavior, await this.storedFields(em, checked.input, behavior));
    });
  }

  /** Soft delete: the behavior stops answering and counting; its name is freed with a marker. */
  remove(tenant: Tenant, id: number): Promise<BehaviorView> {
    return this.writes.remove(tenant, (em) => this.find(em, tenant, id, true));
  }

  /**
   * The limits of a batch as a whole (contract §18): the campaign's behaviors, and, on a live campaign, the goals of the
   * organization's live campaigns. The campaign row is held by the caller; the live goals are counted under the
   * organization's live-goals lock, so that concurrent writes cannot both pass.
   */
  private async checkCampaignLimits(em: EntityManager, tenant: Tenant, campaign: Campaign, inputs: BehaviorInput[]): Promise<void> {
    const [{ count }]: Array<{ count: number }> = await em.query(
      `SELECT count(*)::int AS count FROM behaviors WHERE organization_id = $1 AND campaign_id = $2 AND deleted_at IS NULL`,
      [tenant.organizationId, campaign.id],
    );
    const tooMany = behaviorsPerCampaignProblem(count, inputs.length);
    if (tooMany) throw limitError('behaviors', tooMany);
    await holdLiveGoals(em, tenant.organizationId);
    if (campaign.status !== 'live') return;
    const added = inputs.reduce((sum, input) => sum + goalCount(input.goal_groups), 0);
    const problem = liveGoalsProblem(await liveGoalCount(em, tenant.organizationId), added);
    if (problem) throw limitError('behaviors', problem);
  }

  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Behavior> {
    return findOwned(em, Behavior, { id }, tenant.organizationId, 'behavior', lock);
  }

  /** Names free in the organization and in the batch; outcomes naming live objects. Adds to each behavior's errors. */
  private async checkAgainstDatabase(
    em: EntityManager,
    tenant: Tenant,
    campaignId: number,
    checked: CheckedBehavior[],
    selfId: number | null,
    outcomes = true,
  ) {
    const names = checked.map((c) => c.input.name.toLowerCase());
    const taken: Array<{ name: string }> = await em.query(
      `SELECT lower(name) AS name FROM behaviors
        WHERE organization_id = $1 AND deleted_at IS NULL AND lower(name) = ANY($2::text[]) AND id <> $3`,
      [tenant.organizationId, names, selfId ?? 0],
    );
    checked.forEach((c, i) => {
      if (!c.input.name || 'name' in c.errors) return;
      if (taken.some((t) => t.name === names[i])) c.errors.name = 'is already used by another behavior of this organization';
      else if (names.indexOf(names[i]) < i) c.errors.name = `is used by behavior ${names.indexOf(names[i])} of this batch`;
    });
    if (checked.some((c) => c.input.variant !== null)) {
      const [row]: Array<{ experiment: StoredExperiment | null }> = await em.query(`SELECT experiment FROM campaigns WHERE id = $1`, [campaignId]);
      for (const c of checked) checkVariant(c, row?.experiment?.variants.map((v) => v.name) ?? null);
    }
    if (!outcomes) return;
    const named = referencesNamed(checked.map((c) => c.input));
    const ids = async (sql: string, params: unknown[]) => new Set(((await em.query(sql, params)) as Array<{ id: number }>).map((r) => r.id));
    const offerIds = named.offerIds.length
      ? await ids(`SELECT id FROM offers WHERE organization_id = $1 AND deleted_at IS NULL AND id = ANY($2::int[])`, [tenant.organizationId, named.offerIds])
      : new Set<number>();
    const creativeIds = named.creativeIds.length
      ? await ids(
          `SELECT c.id FROM creatives c
             JOIN creative_groups g ON g.id = c.creative_group_id
             JOIN line_items l ON l.id = g.line_item_id
            WHERE c.organization_id = $1 AND l.campaign_id = $2 AND c.deleted_at IS NULL AND c.id = ANY($3::int[])`,
          [tenant.organizationId, campaignId, named.creativeIds],
        )
      : new Set<number>();
    const tiers: Array<{ name: string }> = named.tierNames.length
      ? await em.query(`SELECT name FROM tiers WHERE organization_id = $1 AND deleted_at IS NULL AND lower(name) = ANY($2::text[])`, [
          tenant.organizationId,
          named.tierNames,
        ])
      : [];
    const tierNames = new Map(tiers.map((t) => [t.name.toLowerCase(), t.name]));
    for (const c of checked) checkReferences(c, { offerIds, creativeIds, tierNames });
  }

  /** The columns of a valid behavior: new ids from the sequences, or the current ones for goals and outcomes kept. */
  private async storedFields(em: EntityManager, input: BehaviorInput, current: Behavior | null) {
    const goalIds = new Map((current?.goalGroups ?? []).flatMap((g) => g.goals.map((goal) => [goal.name, goal.id] as const)));
    const goals = input.goal_groups.flatMap((g) => g.goals);
    const nextGoalId = await this.ids(em, 'goals_id_seq', goals.filter((goal) => !goalIds.has(goal.name)).length);
    const goalGroups: StoredGoalGroup[] = input.goal_groups.map((g) => ({
      goal_count: g.goal_count,
      goals: g.goals.map((goal) => ({ id: goalIds.get(goal.name) ?? nextGoalId(), ...goal })),
    }));

    const outcomes = input.outcome_config.filter((o): o is OutcomeInput => o !== null);
    const unused = [...(current?.outcomeConfig ?? [])];
    const kept = outcomes.map((o) => {
      const index = unused.findIndex((old) => outcomeKey(old) === outcomeKey(o));
      return index < 0 ? null : unused.splice(index, 1)[0];
    });
    const nextOutcomeId = await this.ids(em, 'outcomes_id_seq', kept.filter((k) => k === null).length);
    const now = new Date(this.clock.now()).toISOString();
    const outcomeConfig: StoredOutcome[] = outcomes.map((o, i) => {
      const old = kept[i];
      return { id: old?.id ?? nextOutcomeId(), ...o, created_at: old?.created_at ?? now, updated_at: old?.updated_at ?? now };
    });
    return { name: input.name, tags: input.tags, points: input.points, data: input.data, goalGroups, outcomeConfig, variant: input.variant };
  }

  /** `count` fresh values of a sequence, handed out one by one. */
  private async ids(em: EntityManager, sequence: 'goals_id_seq' | 'outcomes_id_seq', count: number): Promise<() => number> {
    const rows: Array<{ id: number }> = count
      ? await em.query(`SELECT nextval('${sequence}')::int AS id FROM generate_series(1, $1::int)`, [count])
      : [];
    let next = 0;
    return () => {
      const row = rows[next++];
      if (!row) throw new Error(`ran out of ${sequence} values`);
      return row.id;
    };
  }

  private async tierIds(em: EntityManager, organizationId: number, behaviors: Behavior[]): Promise<TierIds> {
    const names = [...new Set(behaviors.flatMap((b) => b.outcomeConfig.flatMap((o) => (o.tier ? [o.tier.name.toLowerCase()] : []))))];
    if (!names.length) return new Map();
    const rows: Array<{ id: number; name: string }> = await em.query(
      `SELECT id, lower(name) AS name FROM tiers WHERE organization_id = $1 AND deleted_at IS NULL AND lower(name) = ANY($2::text[])`,
      [organizationId, names],
    );
    return new Map(rows.map((r) => [r.name, r.id]));
  }
}
