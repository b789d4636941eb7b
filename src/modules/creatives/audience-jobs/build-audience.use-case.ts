import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../../config/config.module.js';
import type { AppConfig } from '../../../config/config.js';
import { compileTargeting, type Criterion, type FlatValue } from '../../../engine/index.js';
import { ExtensionRegistry } from '../../registry/index.js';
import { ACTIVE_SCHEDULED_CREATIVES } from './active-creatives.js';
import { csvLine } from '../../../common/csv.js';
import { leaseHeartbeat } from '../../../common/scheduling/lease.js';

/** Customers read per query (keyset pagination by customer id): the audience is never held in memory whole. */
export const AUDIENCE_PAGE = 1000;
/** A running job whose heartbeat is older than this is taken to be dead (its worker crashed) and may be claimed again. */
export const LEASE_SECONDS = 60;
/** How often a run renews its lease while it reads the audience (a timer): well inside LEASE_SECONDS. */
const HEARTBEAT_MS = 10_000;
/** Ad types whose delivery is a file: their audience jobs write a CSV. */
const FILE_AD_TYPES = new Set(['issue_audience_csv', 'issue_audience_csv_no_msg']);

export type AudienceRunResult =
  | { outcome: 'skipped'; audienceJobId: number }
  | { outcome: 'cancelled'; audienceJobId: number; creativeId: number }
  | { outcome: 'completed'; audienceJobId: number; creativeId: number; customerCount: number; file: string | null };

interface Claimed {
  id: number;
  organization_id: number;
  creative_id: number;
  scheduled_at: Date;
  attempt: number;
}

interface Audience {
  adType: string;
  divisionId: number;
  campaignTargeting: Criterion[];
  groupTargeting: Criterion[];
}

interface CustomerRow {
  id: string;
  external_id: string;
  division_id: number;
  tags: string[];
  attributes: Record<string, FlatValue>;
  available_points: string;
  lifetime_points: string;
  tier_id: number | null;
  time_zone: string;
  tier_name: string | null;
}

class LostLease extends Error {}

/**
 * Runs one audience job (contract §11, scheduled delivery). The row is the truth:
 * 1. claim it in a transaction with a conditional UPDATE (`scheduled`, or `running` with an expired lease → `running`,
 *    attempt + 1), and in the same transaction check that its creative is still active with that delivery date, else
 *    the row becomes `cancelled`. A second worker (or a duplicate job) finds nothing to claim.
 * 2. build the audience: customers of the campaign's division subtree, division by division, AUDIENCE_PAGE at a time
 *    by id, all in one read-only snapshot, kept when the campaign's and the creative group's targeting hold (the
 *    engine's own predicate); the lease is renewed every HEARTBEAT_MS meanwhile (leaseHeartbeat), and a renewal that
 *    finds the row taken over stops the run at its next page.
 * 3. write the CSV (file ad types) to a temporary file, rename it into place, and complete the row, fenced by attempt.
 */
@Injectable()
export class BuildAudienceUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly extensions: ExtensionRegistry,
  ) {}

  /** The division and every division below it (deleted ones hold no customers: a delete needs the division unused). */
  private async subtree(em: EntityManager, organizationId: number, divisionId: number): Promise<number[]> {
    const rows: Array<{ id: number }> = await em.query(
      `SELECT id FROM divisions WHERE organization_id = $1 AND $2 = ANY(ancestor_ids) ORDER BY id`,
      [organizationId, divisionId],
    );
    return rows.map((r) => r.id);
  }

  /** The next AUDIENCE_PAGE customers of one division after `after` by id: a range of the (division_id, id) index. */
  private page(em: EntityManager, organizationId: number, divisionId: number, after: string | null): Promise<CustomerRow[]> {
    return em.query(
      `SELECT c.id, c.external_id, c.division_id, c.tags, c.attributes, c.available_points, c.lifetime_points, c.tier_id, c.time_zone,
              t.name AS tier_name
         FROM customers c
         LEFT JOIN tiers t ON t.id = c.tier_id AND t.deleted_at IS NULL
        WHERE c.division_id = $1 AND c.organization_id = $2 AND ($3::uuid IS NULL OR c.id > $3::uuid) AND c.erased_at IS NULL
        ORDER BY c.id
        LIMIT $4`,
      [divisionId, organizationId, after, AUDIENCE_PAGE],
    );
  }

  async execute(audienceJobId: number): Promise<AudienceRunResult> {
    const claim = await this.claim(audienceJobId);
    if (claim === null) return { outcome: 'skipped', audienceJobId };
    if (claim.audience === null) return { outcome: 'cancelled', audienceJobId, creativeId: claim.job.creative_id };
    const { job, audience } = claim;
    const relative = FILE_AD_TYPES.has(audience.adType) ? join('audience-jobs', String(job.organization_id), `${job.id}-${job.attempt}.csv`) : null;
    const dir = join(this.config.storageDir, 'audience-jobs', String(job.organization_id));
    const temp = relative ? join(dir, `${job.id}.csv.${job.attempt}.tmp`) : null;
    let count = 0;
    try {
      if (temp) await mkdir(dir, { recursive: true });
      const out = temp ? createWriteStream(temp, { encoding: 'utf8' }) : null;
      const lease = leaseHeartbeat(HEARTBEAT_MS, () => this.heartbeat(job));
      const write = async (text: string) => {
        if (out && !out.write(text)) await once(out, 'drain');
      };
      try {
        await write(csvLine(['external_id', 'user_id']));
        const operators = this.extensions.engine().operators;
        const campaignTargets = compileTargeting(audience.campaignTargeting, operators);
        const groupTargets = compileTargeting(audience.groupTargeting, operators);
        // One snapshot for every page: a customer moved between divisions during the run is read in one of them,
        // once. The lease is renewed on another connection, so the snapshot's transaction only reads.
        await this.db.transaction('REPEATABLE READ', async (em) => {
          await em.query('SET TRANSACTION READ ONLY');
          for (const divisionId of await this.subtree(em, job.organization_id, audience.divisionId)) {
            let after: string | null = null;
            for (;;) {
              const page = await this.page(em, job.organization_id, divisionId, after);
              for (const row of page) {
                const subject = { customer: snapshot(row), tierName: row.tier_name };
                if (!campaignTargets(subject) || !groupTargets(subject)) continue;
                count += 1;
                await write(csvLine([row.external_id, row.id]));
              }
              if (lease.lost()) throw new LostLease(`audience job ${job.id} was taken over`);
              if (page.length < AUDIENCE_PAGE) break;
              after = page[page.length - 1].id;
            }
          }
        });
      } finally {
        lease.stop();
        if (out) {
          out.end();
          await once(out, 'close');
        }
      }
      if (temp && relative) await rename(temp, join(this.config.storageDir, relative));
      const done = await this.db.query(
        `UPDATE audience_jobs SET status = 'completed', customer_count = $3, file_path = $4, completed_at = now(), updated_at = now(), error = NULL
          WHERE id = $1 AND attempt = $2 AND status = 'running' RETURNING id`,
        [job.id, job.attempt, count, relative],
      );
      if (done[0].length === 0) {
        // Taken over: the file of this stale run (named by its attempt) is nobody's; the winner's is untouched.
        if (relative) await rm(join(this.config.storageDir, relative), { force: true });
        throw new LostLease(`audience job ${job.id} was taken over`);
      }
      return { outcome: 'completed', audienceJobId: job.id, creativeId: job.creative_id, customerCount: count, file: relative };
    } catch (error) {
      if (temp) await rm(temp, { force: true });
      throw Object.assign(error as Error, { claimedAttempt: job.attempt });
    }
  }

  /** After a failed run: the last attempt marks the row `failed`; an earlier one releases the lease for the retry. */
  async fail(audienceJobId: number, attempt: number, last: boolean, message: string): Promise<void> {
    await this.db.query(
      `UPDATE audience_jobs
          SET status = CASE WHEN $3 THEN 'failed' ELSE status END, completed_at = CASE WHEN $3 THEN now() ELSE completed_at END,
              heartbeat_at = NULL, error = $4, updated_at = now()
        WHERE id = $1 AND attempt = $2 AND status = 'running'`,
      [audienceJobId, attempt, last, message.slice(0, 1000)],
    );
  }

  private claim(audienceJobId: number): Promise<{ job: Claimed; audience: Audience | null } | null> {
    return this.db.transaction(async (em) => {
      const [rows]: [Claimed[], number] = await em.query(
        `UPDATE audience_jobs
            SET status = 'running', attempt = attempt + 1, started_at = now(), heartbeat_at = now(), updated_at = now()
          WHERE id = $1
            AND (status = 'scheduled' OR (status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $2))))
          RETURNING id, organization_id, creative_id, scheduled_at, attempt`,
        [audienceJobId, LEASE_SECONDS],
      );
      if (rows.length === 0) return null;
      const job = rows[0];
      const details: Array<{ ad_type: string; division_id: number; campaign_targeting: Criterion[]; group_targeting: Criterion[] }> = await em.query(
        `SELECT c.ad_type, k.division_id, k.targeting AS campaign_targeting, g.targeting AS group_targeting
           FROM (${ACTIVE_SCHEDULED_CREATIVES}) a
           JOIN creatives c ON c.id = a.creative_id
           JOIN creative_groups g ON g.id = c.creative_group_id
           JOIN line_items l ON l.id = g.line_item_id
           JOIN campaigns k ON k.id = l.campaign_id
          WHERE a.creative_id = $2 AND a.scheduled_at = $3`,
        [job.organization_id, job.creative_id, job.scheduled_at],
      );
      if (details.length === 0) {
        await em.query(`UPDATE audience_jobs SET status = 'cancelled', updated_at = now() WHERE id = $1`, [job.id]);
        return { job, audience: null };
      }
      const d = details[0];
      return { job, audience: { adType: d.ad_type, divisionId: d.division_id, campaignTargeting: d.campaign_targeting ?? [], groupTargeting: d.group_targeting ?? [] } };
    });
  }

  /** Renews the lease; false when the row is no longer this run's (taken over). */
  private async heartbeat(job: Claimed): Promise<boolean> {
    const [rows] = await this.db.query(`UPDATE audience_jobs SET heartbeat_at = now() WHERE id = $1 AND attempt = $2 AND status = 'running' RETURNING id`, [
      job.id,
      job.attempt,
    ]);
    return rows.length > 0;
  }
}

function snapshot(row: CustomerRow) {
  return {
    id: row.id,
    timeZone: row.time_zone,
    divisionId: row.division_id,
    tags: row.tags,
    attributes: row.attributes ?? {},
    availablePoints: Number(row.available_points),
    lifetimePoints: Number(row.lifetime_points),
    tierId: row.tier_id,
    qualifiedCampaignIds: [],
    completedCampaignIds: [],
  };
}
