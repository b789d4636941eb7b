import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PageQuery, pageWindow } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { AuditLogResponse } from './dto/audit.dto.js';

interface AuditRow {
  id: string;
  action: string;
  object_type: string;
  object_id: string;
  api_key: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  created_at: Date;
  total: string;
}

/** Reads the organization's audit log, newest first. */
@Injectable()
export class AuditLogService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async list(tenant: Tenant, query: PageQuery): Promise<AuditLogResponse> {
    const { take, skip } = pageWindow(query);
    const rows: AuditRow[] = await this.db.query(
      `SELECT a.id, a.action, a.object_type, a.object_id, k.key AS api_key, a.before, a.after, a.created_at, count(*) OVER () AS total
         FROM audit_log a LEFT JOIN api_keys k ON k.id = a.api_key_id
        WHERE a.organization_id = $1
        ORDER BY a.created_at DESC, a.id DESC
        LIMIT $2 OFFSET $3`,
      [tenant.organizationId, take, skip],
    );
    const total = rows.length
      ? Number(rows[0].total)
      : Number((await this.db.query(`SELECT count(*) AS n FROM audit_log WHERE organization_id = $1`, [tenant.organizationId]))[0].n);
    return {
      status: 'ok',
      audit_log: rows.map(({ total: _total, created_at, ...row }) => ({ ...row, created_at: created_at.toISOString() })),
      page: query.page,
      limit: query.limit,
      total,
    };
  }
}
