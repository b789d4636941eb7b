import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { compileRules, type CompiledRules } from '../../../engine/index.js';
import { Behavior, Campaign } from '../../../database/entities/index.js';
import { CreativeRow, toRuleSet } from './rule-set.mapper.js';

const MAX_ORGANIZATIONS = 1000;

/**
 * Each organization's live campaign rules, compiled once per rules version. Every management write bumps
 * `organizations.rules_version` in its transaction (ConfigChangesService), so a process that sees a version it has
 * not compiled reloads: every API and worker process agrees on the next event, with nothing to broadcast.
 */
@Injectable()
export class RulesCacheService {
  private readonly compiled = new Map<number, { version: number; rules: Promise<CompiledRules> }>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The organization's current rules version (read it with the customer's row to save a round trip). */
  async version(organizationId: number, em: EntityManager = this.db.manager): Promise<number> {
    const rows: Array<{ rules_version: string }> = await em.query(`SELECT rules_version FROM organizations WHERE id = $1`, [organizationId]);
    return Number(rows[0]?.rules_version ?? 0);
  }

  /** The rules this process compiled last for the organization, whatever their version (a hint, may be stale). */
  peek(organizationId: number): Promise<CompiledRules> | null {
    return this.compiled.get(organizationId)?.rules ?? null;
  }

  /** The compiled rules of that version; loaded and compiled at most once per process and version. */
  async get(organizationId: number, version?: number): Promise<CompiledRules> {
    const wanted = version ?? (await this.version(organizationId));
    const cached = this.compiled.get(organizationId);
    if (cached && cached.version >= wanted) return cached.rules;
    const rules = this.load(organizationId).then(compileRules);
    rules.catch(() => {
      if (this.compiled.get(organizationId)?.rules === rules) this.compiled.delete(organizationId);
    });
    this.compiled.delete(organizationId);
    if (this.compiled.size >= MAX_ORGANIZATIONS) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(organizationId, { version: wanted, rules });
    return rules;
  }

  private async load(organizationId: number) {
    const em = this.db.manager;
    const campaigns = await em.find(Campaign, { where: { organizationId, status: 'live' }, order: { id: 'ASC' } });
    const ids = campaigns.map((c) => c.id);
    const [behaviors, offers, tiers, creatives, divisions] = await Promise.all([
      ids.length ? em.find(Behavior, { where: { campaignId: In(ids) }, order: { id: 'ASC' } }) : Promise.resolve([]),
      em.query(`SELECT id, name, points FROM offers WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId]),
      em.query(`SELECT id, name, min_points AS "minPoints" FROM tiers WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId]),
      ids.length
        ? em.query(
            `SELECT c.id, l.campaign_id, c.behavior_id, c.ad_type, c.message, c.url, c.payload,
                    c.issue_audience_csv->>'delivery_method' AS delivery_method,
                    c.status AS creative_status, g.status AS group_status, l.status AS line_item_status, g.targeting AS group_targeting
               FROM creatives c
               JOIN creative_groups g ON g.id = c.creative_group_id AND g.deleted_at IS NULL
               JOIN line_items l ON l.id = g.line_item_id AND l.deleted_at IS NULL
              WHERE c.deleted_at IS NULL AND l.campaign_id = ANY($1)`,
            [ids],
          )
        : Promise.resolve([]),
      em.query(`SELECT id, ancestor_ids FROM divisions WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId]),
    ]);
    return toRuleSet({ campaigns, behaviors, offers, tiers, creatives: creatives as CreativeRow[], divisions });
  }
}
