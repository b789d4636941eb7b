import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppError } from '../../../common/errors/app-error.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { APP_CONFIG } from '../../../config/config.module.js';
import type { AppConfig } from '../../../config/config.js';
import { CreativesService } from '../creatives.service.js';
import type { AudienceJobStatus, AudienceJobView } from './dto/audience-job.dto.js';

interface AudienceJobRow {
  id: number;
  status: AudienceJobStatus;
  customer_count: number | null;
  scheduled_at: Date;
  completed_at: Date | null;
  file_path: string | null;
}

/** Reads a creative's audience jobs and their files; the creative must be the organization's and not deleted. */
@Injectable()
export class AudienceJobsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly creatives: CreativesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(tenant: Tenant, creativeId: number): Promise<AudienceJobView[]> {
    await this.creatives.find(this.db.manager, tenant, creativeId);
    const rows: AudienceJobRow[] = await this.db.query(
      `SELECT id, status, customer_count, scheduled_at, completed_at, file_path FROM audience_jobs
        WHERE creative_id = $1 AND organization_id = $2 ORDER BY id DESC`,
      [creativeId, tenant.organizationId],
    );
    return rows.map(view);
  }

  /** The CSV of a completed job; `not_found` when the job is not the creative's, not completed, or has no file. */
  async file(tenant: Tenant, creativeId: number, jobId: number): Promise<{ stream: ReadStream; name: string; size: number }> {
    await this.creatives.find(this.db.manager, tenant, creativeId);
    const [row]: AudienceJobRow[] = await this.db.query(
      `SELECT id, status, customer_count, scheduled_at, completed_at, file_path FROM audience_jobs
        WHERE id = $1 AND creative_id = $2 AND organization_id = $3`,
      [jobId, creativeId, tenant.organizationId],
    );
    if (!row || row.status !== 'completed' || !row.file_path) throw AppError.notFound('audience job file');
    const path = join(this.config.storageDir, row.file_path);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw AppError.notFound('audience job file');
    return { stream: createReadStream(path), name: `audience-job-${row.id}.csv`, size: info.size };
  }
}

function view(row: AudienceJobRow): AudienceJobView {
  return {
    id: Number(row.id),
    status: row.status,
    customer_count: row.customer_count,
    scheduled_at: new Date(row.scheduled_at).toISOString(),
    completed_at: row.completed_at ? new Date(row.completed_at).toISOString() : null,
  };
}
