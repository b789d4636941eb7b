import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ownedPage } from '../../common/database/owned-lists.js';
import { OwnedWrites } from '../../common/database/owned-writes.js';
import { uniqueViolation } from '../../common/database/unique-violation.js';
import { AppError } from '../../common/errors/app-error.js';
import type { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { toDate } from '../../common/validation/validators.js';
import { Campaign, Creative, CreativeGroup, LineItem } from '../../database/entities/index.js';
import type { StoredExperiment } from '../../database/entities/campaign.entity.js';
import { holdLiveDivision } from '../tenancy/index.js';
import { ConfigChangesService } from '../audit/index.js';
import { campaignView } from './campaign.view.js';
import type { CampaignListResponse, CampaignView, CreateCampaignInput, NavigationCampaign, UpdateCampaignInput } from './dto/campaign.dto.js';
import { DEFAULT_VARIANTS, type ExperimentInput } from './dto/experiment.dto.js';
import { findOwned } from '../../common/database/find-owned.js';
import { campaignGoalCount, holdLiveGoals, liveGoalCount } from './live-goals.repository.js';
import { liveGoalsProblem } from './behaviors/behavior-limits.js';

/** How a route names a campaign: by id or by permalink. */
export type CampaignRef = { id: number } | { permalink: string };

const UNIQUE = uniqueViolation({
  campaigns_name: { field: 'campaign.name', message: 'is already used by another campaign of this organization' },
  campaigns_permalink: { field: 'campaign.permalink', message: 'is already used by another campaign of this organization' },
});

function slug(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return base || 'campaign';
}

@Injectable()
export class CampaignsService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'campaign', view: campaignView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, input: CreateCampaignInput): Promise<CampaignView> {
    return this.writes.create(tenant, async (em) => {
      const fields = await this.validated(em, tenant, input, null);
      const permalink = input.permalink ?? (await this.freePermalink(em, tenant, slug(input.name)));
      return em.create(Campaign, { ...fields, organizationId: tenant.organizationId, permalink, status: input.status ?? 'draft' });
    });
  }

  async list(tenant: Tenant, query: PageQuery): Promise<CampaignListResponse> {
    const { rows, ...page } = await ownedPage(this.db.manager, Campaign, tenant.organizationId, query);
    return { status: 'ok', campaigns: rows.map(campaignView), ...page };
  }

  async get(tenant: Tenant, ref: CampaignRef): Promise<CampaignView> {
    return campaignView(await this.find(this.db.manager, tenant, ref));
  }

  update(tenant: Tenant, ref: CampaignRef, input: UpdateCampaignInput): Promise<CampaignView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, ref, true), async (campaign, em) => {
      const fields = await this.validated(em, tenant, input, campaign);
      if (input.status === 'live' && campaign.status !== 'live') await this.checkLiveGoals(em, tenant, campaign);
      Object.assign(campaign, fields, { status: input.status }, input.permalink !== undefined ? { permalink: input.permalink } : {});
    });
  }

  /** Soft delete: the campaign and everything under it stop answering, their names freed with a marker. */
  remove(tenant: Tenant, ref: CampaignRef): Promise<CampaignView> {
    return this.writes.remove(tenant, (em) => this.find(em, tenant, ref, true), { below: 'campaign' });
  }

  async navigation(tenant: Tenant, ref: CampaignRef): Promise<NavigationCampaign> {
    const campaign = await this.find(this.db.manager, tenant, ref);
    const lineItems = await this.db.manager.find(LineItem, { where: { campaignId: campaign.id }, order: { id: 'ASC' } });
    const groups = lineItems.length
      ? await this.db.manager.find(CreativeGroup, { where: { lineItemId: In(lineItems.map((l) => l.id)) }, order: { id: 'ASC' } })
      : [];
    const creatives = groups.length
      ? await this.db.manager.find(Creative, { where: { creativeGroupId: In(groups.map((g) => g.id)) }, order: { id: 'ASC' } })
      : [];
    const dates = (o: { startsAt: Date; endsAt: Date }) => ({ starts_at: o.startsAt.toISOString(), ends_at: o.endsAt.toISOString() });
    return {
      id: campaign.id,
      name: campaign.name,
      status: campaign.status,
      ...dates(campaign),
      line_items: lineItems.map((l) => ({
        id: l.id,
        name: l.name,
        status: l.status,
        ...dates(l),
        creative_groups: groups
          .filter((g) => g.lineItemId === l.id)
          .map((g) => ({
            id: g.id,
            name: g.name,
            status: g.status,
            ...dates(g),
            creatives: creatives.filter((c) => c.creativeGroupId === g.id).map((c) => ({ id: c.id, name: c.name, status: c.status })),
          })),
      })),
    };
  }

  /** A live (not deleted) campaign of the organization; `lock` holds it for the rest of the transaction. */
  async find(em: EntityManager, tenant: Tenant, ref: CampaignRef, lock = false): Promise<Campaign> {
    return findOwned(em, Campaign, ref, tenant.organizationId, 'campaign', lock);
  }

  /**
   * A campaign becoming live brings its goals to the organization's live goals (contract §18): counted under the
   * organization's live-goals lock, as behavior writes are, so that concurrent writes cannot both pass the limit.
   */
  private async checkLiveGoals(em: EntityManager, tenant: Tenant, campaign: Campaign): Promise<void> {
    await holdLiveGoals(em, tenant.organizationId);
    const added = await campaignGoalCount(em, tenant.organizationId, campaign.id);
    const problem = liveGoalsProblem(await liveGoalCount(em, tenant.organizationId), added);
    if (problem) throw new AppError('validation', problem, [{ field: 'campaign.status', message: problem }]);
  }

  private async validated(em: EntityManager, tenant: Tenant, input: CreateCampaignInput | UpdateCampaignInput, current: Campaign | null) {
    const startsAt = toDate(input.starts_at);
    const endsAt = toDate(input.ends_at);
    if (endsAt <= startsAt) throw AppError.validation('campaign.ends_at', 'must be after campaign.starts_at');
    const divisionId = input.division_id ?? current?.divisionId ?? tenant.rootDivisionId;
    if (!(await holdLiveDivision(em, tenant.organizationId, divisionId))) {
      throw AppError.validation('campaign.division_id', 'is not a division of this organization');
    }
    // Only a list the request sends is checked: a stored one stays as it is, even if a campaign it names was deleted.
    const given = input.prerequisite_campaign_ids;
    const prerequisites = [...new Set(given ?? current?.prerequisiteCampaignIds ?? [])];
    if (current && given?.includes(current.id)) throw AppError.validation('campaign.prerequisite_campaign_ids', 'cannot name the campaign itself');
    if (given?.length) {
      const found = await em.findBy(Campaign, { id: In(given), organizationId: tenant.organizationId });
      const missing = given.filter((id) => !found.some((c) => c.id === id));
      if (missing.length) throw AppError.validation('campaign.prerequisite_campaign_ids', `names unknown campaigns: ${missing.join(', ')}`);
    }
    return {
      name: input.name,
      startsAt,
      endsAt,
      divisionId,
      optInRequired: input.opt_in_required ?? current?.optInRequired ?? false,
      prerequisiteCampaignIds: prerequisites,
      targeting: input.targeting ?? current?.targeting ?? [],
      ...(input.budget === undefined
        ? {}
        : { budgetMaxCompletions: input.budget?.max_completions ?? null, budgetMaxPoints: input.budget?.max_points ?? null }),
      ...(input.experiment === undefined ? {} : { experiment: await this.experiment(em, input.experiment, current) }),
    };
  }

  /**
   * The experiment a write asks for (§20), with its defaults: variant names unique, every variant a behavior of the
   * campaign names kept, and, once a customer is assigned, holdout_percent and variants as they were.
   */
  private async experiment(em: EntityManager, input: ExperimentInput | null, current: Campaign | null): Promise<StoredExperiment | null> {
    const wanted = input && {
      holdout_percent: input.holdout_percent,
      variants: (input.variants ?? DEFAULT_VARIANTS).map((v) => ({ name: v.name, weight: v.weight ?? 1 })),
      metric: { event: input.metric.event, attribute: input.metric.attribute ?? null },
    };
    const names = wanted?.variants.map((v) => v.name) ?? [];
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated !== undefined) throw AppError.validation('campaign.experiment.variants', `names "${repeated}" twice: variant names must be unique`);
    const was = current?.experiment ?? null;
    if ((current?.experimentStartedAt || current?.experimentEndedAt) && JSON.stringify(groupsOf(was)) !== JSON.stringify(groupsOf(wanted))) {
      const why = current.experimentEndedAt ? 'the experiment has ended' : 'customers have been assigned';
      throw AppError.validation('campaign.experiment', `holdout_percent and variants can no longer change: ${why} (only metric can)`);
    }
    if (current) {
      const [used] = (await em.query(
        `SELECT name, variant FROM behaviors WHERE campaign_id = $1 AND deleted_at IS NULL AND variant IS NOT NULL AND variant <> ALL($2::text[]) ORDER BY id LIMIT 1`,
        [current.id, names],
      )) as Array<{ name: string; variant: string }>;
      if (used) throw AppError.validation('campaign.experiment.variants', `must keep variant "${used.variant}": behavior "${used.name}" names it`);
    }
    return wanted;
  }

  /** The slug, or the slug with the first free -2, -3...; serialized per organization so parallel creates differ. */
  private async freePermalink(em: EntityManager, tenant: Tenant, base: string): Promise<string> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('campaign-permalink'), $1)`, [tenant.organizationId]);
    const taken = new Set(
      (await em
        .createQueryBuilder(Campaign, 'c')
        .select('c.permalink', 'permalink')
        .where('c.organization_id = :org AND c.deleted_at IS NULL AND (c.permalink = :base OR c.permalink LIKE :prefix)', {
          org: tenant.organizationId,
          base,
          prefix: `${base}-%`,
        })
        .getRawMany<{ permalink: string }>()).map((r) => r.permalink),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

}

/** What assignment depends on: the holdout and the variants with their weights (null: no experiment). */
function groupsOf(e: StoredExperiment | null): unknown {
  return e && [e.holdout_percent, e.variants];
}
