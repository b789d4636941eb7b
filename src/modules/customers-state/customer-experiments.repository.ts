import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ExperimentAssignmentView } from './dto/user.dto.js';

/** The customer's experiment assignments (contract §20), as the event path wrote them. */
@Injectable()
export class CustomerExperiments {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** In campaigns not deleted, first assigned first. */
  async of(customerId: string): Promise<ExperimentAssignmentView[]> {
    const rows: Array<{ campaign_id: number; group_name: string; assigned_at: Date }> = await this.db.query(
      `SELECT a.campaign_id, a.group_name, a.assigned_at FROM experiment_assignments a JOIN campaigns c ON c.id = a.campaign_id AND c.deleted_at IS NULL
        WHERE a.customer_id = $1 ORDER BY a.assigned_at, a.campaign_id`,
      [customerId],
    );
    return rows.map((r) => ({ campaign_id: r.campaign_id, group: r.group_name, assigned_at: r.assigned_at.toISOString() }));
  }
}
