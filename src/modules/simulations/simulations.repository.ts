import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SimulationResults } from './simulation-results.js';

export type SimulationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface SimulationRow {
  id: number;
  organization_id: number;
  campaign_id: number;
  status: SimulationStatus;
  range_from: Date;
  range_to: Date;
  customer_ids: string[] | null;
  explain: boolean;
  customers: number;
  events_replayed: string;
  results: SimulationResults | null;
  explanations: Record<string, unknown[]> | null;
  error: string | null;
  attempt: number;
  created_at: Date;
  /** When its current run was claimed (null before the first). */
  started_at: Date | null;
  completed_at: Date | null;
}

export interface NewSimulation {
  organizationId: number;
  campaignId: number;
  from: Date;
  to: Date;
  customerIds: string[] | null;
  explain: boolean;
}

/** A running simulation's counts so far. */
export interface SimulationProgress {
  customers: number;
  eventsReplayed: number;
}

/** A running simulation whose worker stops renewing its lease (`heartbeat_at`) for this long is claimed again. */
export const LEASE_SECONDS = 20;
/** Runs a simulation gets (whatever ends them: an error, or its worker dying) before it is left failed. */
export const MAX_ATTEMPTS = 3;
/** The advisory lock (first key; the organization is the second) that serializes claims of one organization. */
const CLAIM_LOCK = 7_700_010;

const COLUMNS = `id, organization_id, campaign_id, status, range_from, range_to, customer_ids, explain, customers, events_replayed,
                 results, explanations, error, attempt, created_at, started_at, completed_at`;

/**
 * The `simulations` table (contract §15). The row is the truth: a claim makes a worker its runner (`attempt` + 1, a
 * lease renewed by every progress write), and every later write names that attempt, so a runner that lost its row
 * (cancelled, or claimed again after its lease expired) writes nothing and stops.
 */
@Injectable()
export class SimulationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async create(input: NewSimulation): Promise<SimulationRow> {
    const [row] = (await this.db.query(
      `INSERT INTO simulations (organization_id, campaign_id, range_from, range_to, customer_ids, explain)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [input.organizationId, input.campaignId, input.from, input.to, input.customerIds, input.explain],
    )) as SimulationRow[];
    return row;
  }

  async find(organizationId: number, id: number): Promise<SimulationRow | null> {
    const [row] = (await this.db.query(`SELECT ${COLUMNS} FROM simulations WHERE id = $1 AND organization_id = $2`, [id, organizationId])) as SimulationRow[];
    return row ?? null;
  }

  /** A page of the campaign's simulations, newest first, with their total; results and explanations left out. */
  async ofCampaign(organizationId: number, campaignId: number, page: { take: number; skip: number }): Promise<{ rows: SimulationRow[]; total: number }> {
    const [rows, [{ total }]] = (await Promise.all([
      this.db.query(
        `SELECT ${COLUMNS.replace('results, explanations,', 'NULL AS results, NULL AS explanations,')}
           FROM simulations WHERE campaign_id = $1 AND organization_id = $2 ORDER BY id DESC LIMIT $3 OFFSET $4`,
        [campaignId, organizationId, page.take, page.skip],
      ),
      this.db.query(`SELECT count(*)::int AS total FROM simulations WHERE campaign_id = $1 AND organization_id = $2`, [campaignId, organizationId]),
    ])) as [SimulationRow[], Array<{ total: number }>];
    return { rows, total };
  }

  /** Cancels the simulation if it has not finished; answers it as it is after (null: not the organization's). */
  async cancel(organizationId: number, id: number): Promise<SimulationRow | null> {
    await this.db.query(
      `UPDATE simulations SET status = 'cancelled', completed_at = now() WHERE id = $1 AND organization_id = $2 AND status IN ('queued', 'running')`,
      [id, organizationId],
    );
    return this.find(organizationId, id);
  }

  /**
   * Makes this worker the simulation's runner: a queued one, or a running one whose lease expired, while fewer than
   * `perOrganization` others of its organization run (claims of one organization take turns on an advisory lock).
   * Answers the claimed row, `busy` when it must wait for a turn, or null when there is nothing to run.
   */
  async claim(id: number, perOrganization: number): Promise<SimulationRow | 'busy' | null> {
    return this.db.transaction(async (em) => {
      const [row] = (await em.query(`SELECT organization_id FROM simulations WHERE id = $1`, [id])) as Array<{ organization_id: number }>;
      if (!row) return null;
      await em.query(`SELECT pg_advisory_xact_lock($1, $2)`, [CLAIM_LOCK, row.organization_id]);
      // The row is locked until the claim commits: a cancel in between waits, then finds it running and cancels it.
      const [claimable] = (await em.query(
        `SELECT s.attempt, (SELECT count(*)::int FROM simulations r
                  WHERE r.organization_id = s.organization_id AND r.id <> s.id AND r.status = 'running'
                    AND r.heartbeat_at >= now() - make_interval(secs => $2)) AS running
           FROM simulations s
          WHERE s.id = $1 AND (s.status = 'queued' OR (s.status = 'running' AND s.heartbeat_at < now() - make_interval(secs => $2)))
            FOR UPDATE OF s`,
        [id, LEASE_SECONDS],
      )) as Array<{ attempt: number; running: number }>;
      if (!claimable) return null;
      if (claimable.attempt >= MAX_ATTEMPTS) {
        // Its runs all stopped without failing (their workers died, each time): it would stop the next one too.
        await em.query(`UPDATE simulations SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1`, [id, `its worker stopped during each of ${MAX_ATTEMPTS} runs`]);
        return null;
      }
      if (claimable.running >= perOrganization) return 'busy';
      const [claimed] = (await em.query(
        `UPDATE simulations SET status = 'running', attempt = attempt + 1, started_at = now(), heartbeat_at = now(), customers = 0, events_replayed = 0
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id],
      )) as [SimulationRow[], number];
      return claimed[0];
    });
  }

  /** What a run needs of the simulation's organization. */
  async organization(id: number): Promise<{ timeZone: string; multiOrgEnabled: boolean }> {
    const [row] = (await this.db.query(`SELECT time_zone, multi_org_enabled FROM organizations WHERE id = $1`, [id])) as Array<{ time_zone: string; multi_org_enabled: boolean }>;
    return { timeZone: row.time_zone, multiOrgEnabled: row.multi_org_enabled };
  }

  /** Writes the counts so far and renews the lease; false when the runner no longer holds the row (cancelled, lost). */
  async progress(id: number, attempt: number, progress: SimulationProgress): Promise<boolean> {
    const [, count] = (await this.db.query(
      `UPDATE simulations SET customers = $3, events_replayed = $4, heartbeat_at = now() WHERE id = $1 AND attempt = $2 AND status = 'running'`,
      [id, attempt, progress.customers, progress.eventsReplayed],
    )) as [unknown, number];
    return count === 1;
  }

  async complete(id: number, attempt: number, progress: SimulationProgress, results: SimulationResults, explanations: Record<string, unknown[]> | null): Promise<boolean> {
    const [, count] = (await this.db.query(
      `UPDATE simulations SET status = 'completed', completed_at = now(), customers = $3, events_replayed = $4, results = $5, explanations = $6
        WHERE id = $1 AND attempt = $2 AND status = 'running'`,
      [id, attempt, progress.customers, progress.eventsReplayed, JSON.stringify(results), explanations === null ? null : JSON.stringify(explanations)],
    )) as [unknown, number];
    return count === 1;
  }

  /** A run that failed: `failed` with the error when `final` or after MAX_ATTEMPTS runs, else queued again. */
  async fail(id: number, attempt: number, error: string, final: boolean): Promise<void> {
    await this.db.query(
      `UPDATE simulations SET error = $3,
              status = CASE WHEN $4 OR attempt >= $5 THEN 'failed' ELSE 'queued' END,
              completed_at = CASE WHEN $4 OR attempt >= $5 THEN now() END
        WHERE id = $1 AND attempt = $2 AND status = 'running'`,
      [id, attempt, error.slice(0, 1000), final, MAX_ATTEMPTS],
    );
  }

  /** Simulations whose job may be lost: queued for longer than `queuedSeconds`, or running with an expired lease. */
  async unattended(queuedSeconds: number): Promise<Array<{ id: number; attempt: number }>> {
    return (await this.db.query(
      `SELECT id, attempt FROM simulations
        WHERE status IN ('queued', 'running')
          AND ((status = 'queued' AND created_at < now() - make_interval(secs => $1))
            OR (status = 'running' AND heartbeat_at < now() - make_interval(secs => $2)))
        ORDER BY id LIMIT 1000`,
      [queuedSeconds, LEASE_SECONDS],
    )) as Array<{ id: number; attempt: number }>;
  }
}
