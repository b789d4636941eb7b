import { Injectable } from '@nestjs/common';
import type { Queryable } from '../../../common/database/unit-of-work.js';
import type { CampaignRow, BehaviorRow, CreativeRow, OrganizationRow, StoredRules } from './rule-set.mapper.js';

/**
 * The stored configuration the rules of an organization are compiled from: live campaigns, their behaviors, offers,
 * tiers, creatives, divisions and the tier policy. Read on whatever connection the caller holds (`db`): an evaluation compiles new
 * rules on its own transaction's connection, so it never waits for a second one from the pool. The statements
 * go out together (one round trip on a pipelined unit of work).
 */
@Injectable()
export class RulesRepository {
  /** The organization's current rules version (every configuration write bumps it). */
  async version(db: Queryable, organizationId: number): Promise<number> {
    const rows = (await db.query(`SELECT rules_version FROM organizations WHERE id = $1`, [organizationId])) as Array<{ rules_version: string }>;
    return Number(rows[0]?.rules_version ?? 0);
  }

  /**
   * The configuration of the organization's live campaigns; with `campaignId`, of that one campaign (not deleted)
   * whatever its status, as a simulation compiles it.
   */
  async load(db: Queryable, organizationId: number, campaignId?: number): Promise<StoredRules> {
    const which = campaignId === undefined ? `c.status = 'live'` : `c.id = $2`;
    const values = campaignId === undefined ? [organizationId] : [organizationId, campaignId];
    const [campaigns, behaviors, offers, tiers, creatives, divisions, organization] = (await Promise.all([
      db.query(
        `SELECT id, name, permalink, status, starts_at AS "startsAt", ends_at AS "endsAt", division_id AS "divisionId",
                opt_in_required AS "optInRequired", prerequisite_campaign_ids AS "prerequisiteCampaignIds", targeting,
                budget_max_completions AS "budgetMaxCompletions", budget_max_points AS "budgetMaxPoints",
                experiment, experiment_ended_at AS "experimentEndedAt", experiment_winner AS "experimentWinner"
           FROM campaigns c WHERE organization_id = $1 AND ${which} AND deleted_at IS NULL ORDER BY id`,
        values,
      ),
      db.query(
        `SELECT b.id, b.campaign_id AS "campaignId", b.name, b.tags, b.points, b.data, b.goal_groups AS "goalGroups", b.outcome_config AS "outcomeConfig", b.variant
           FROM behaviors b JOIN campaigns c ON c.id = b.campaign_id
          WHERE c.organization_id = $1 AND ${which} AND c.deleted_at IS NULL AND b.deleted_at IS NULL
          ORDER BY b.id`,
        values,
      ),
      db.query(`SELECT id, name, points FROM offers WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId]),
      db.query(`SELECT id, name, min_points AS "minPoints", COALESCE(retain_points, min_points) AS "retainPoints" FROM tiers WHERE organization_id = $1 AND deleted_at IS NULL`, [
        organizationId,
      ]),
      db.query(
        `SELECT cr.id, l.campaign_id, cr.behavior_id, cr.ad_type, cr.message, cr.url, cr.payload,
                cr.issue_audience_csv->>'delivery_method' AS delivery_method,
                cr.status AS creative_status, g.status AS group_status, l.status AS line_item_status, g.targeting AS group_targeting
           FROM creatives cr
           JOIN creative_groups g ON g.id = cr.creative_group_id AND g.deleted_at IS NULL
           JOIN line_items l ON l.id = g.line_item_id AND l.deleted_at IS NULL
           JOIN campaigns c ON c.id = l.campaign_id
          WHERE c.organization_id = $1 AND ${which} AND c.deleted_at IS NULL AND cr.deleted_at IS NULL`,
        values,
      ),
      db.query(`SELECT id, ancestor_ids FROM divisions WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId]),
      db.query(`SELECT tier_policy, time_zone, tier_policy_changed_at FROM organizations WHERE id = $1`, [organizationId]),
    ])) as [CampaignRow[], BehaviorRow[], StoredRules['offers'], StoredRules['tiers'], CreativeRow[], StoredRules['divisions'], OrganizationRow[]];
    return { campaigns, behaviors, offers, tiers, creatives, divisions, organization: organization[0] };
  }
}
