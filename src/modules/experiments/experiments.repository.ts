import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { GroupSums } from '../../engine/index.js';
import type { ExperimentResultsView } from './dto/experiment-results.dto.js';

/** The experiments' stored state (migration 1766000000000): the groups' sums and the end. */
@Injectable()
export class ExperimentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The campaign's groups' sums as folded so far (groups without a customer yet are absent). */
  async sums(campaignId: number, db: EntityManager = this.db.manager): Promise<GroupSums[]> {
    const rows: Array<Record<string, string>> = await db.query(
      `SELECT group_name, customers, converted, metric_sum, metric_sum_squares, achievements, points_credited FROM experiment_groups WHERE campaign_id = $1`,
      [campaignId],
    );
    return rows.map((r) => ({
      name: r.group_name,
      customers: Number(r.customers),
      converted: Number(r.converted),
      metricSum: Number(r.metric_sum),
      metricSumSquares: Number(r.metric_sum_squares),
      achievements: Number(r.achievements),
      pointsCredited: Number(r.points_credited),
    }));
  }

  /** The results frozen when the experiment ended (null before). */
  async frozen(campaignId: number): Promise<ExperimentResultsView | null> {
    const [row]: Array<{ experiment_results: ExperimentResultsView | null }> = await this.db.query(`SELECT experiment_results FROM campaigns WHERE id = $1`, [campaignId]);
    return row?.experiment_results ?? null;
  }

  /** Ends the experiment: the winner, the time and the results as of then. */
  async end(em: EntityManager, campaignId: number, endedAt: Date, winner: string, results: ExperimentResultsView): Promise<void> {
    await em.query(`UPDATE campaigns SET experiment_ended_at = $2, experiment_winner = $3, experiment_results = $4, updated_at = now() WHERE id = $1`, [
      campaignId,
      endedAt,
      winner,
      JSON.stringify(results),
    ]);
  }
}
