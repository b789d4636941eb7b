import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { ConfigChangesService } from '../audit/index.js';
import type { CreatedWebhookView, CreateWebhookInput, DeliveryListResponse, DeliveryView, WebhookView } from './dto/webhook.dto.js';
import type { WebhookEventType } from './occurrences.js';
import { newWebhookSecret } from './signature.js';
import { webhookUrlProblem } from './url-policy.js';

interface WebhookRow {
  id: number;
  url: string;
  event_types: WebhookEventType[];
  created_at: Date;
  deleted_at: Date | null;
}

interface DeliveryRow {
  id: string;
  payload: { id: string };
  type: string;
  status: string;
  attempts: number;
  created_at: Date;
  delivered_at: Date | null;
  attempt_rows: Array<{
    attempt: number;
    status: 'succeeded' | 'failed';
    response_code: number | null;
    error: string | null;
    duration_ms: number;
    started_at: string;
    finished_at: string;
  }> | null;
}

/** The columns a webhook is answered with: never the secret. */
const VIEW_COLUMNS = 'id, url, event_types, created_at, deleted_at';

function webhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    event_types: row.event_types,
    created_at: row.created_at.toISOString(),
    ...(row.deleted_at ? { deleted_at: row.deleted_at.toISOString() } : {}),
  };
}

const iso = (value: string) => new Date(value).toISOString();

/** Webhook subscriptions of an organization and their deliveries (contract §11). The secret leaves only on create. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  create(tenant: Tenant, input: CreateWebhookInput): Promise<CreatedWebhookView> {
    const problem = webhookUrlProblem(input.url, this.config.webhookAllowPrivateNetworks);
    if (problem) throw AppError.validation('webhook.url', problem);
    const secret = newWebhookSecret();
    return this.db.transaction(async (em) => {
      const [row]: WebhookRow[] = await em.query(
        `INSERT INTO webhooks (organization_id, url, event_types, secret) VALUES ($1, $2, $3, $4) RETURNING ${VIEW_COLUMNS}`,
        [tenant.organizationId, input.url, input.event_types, secret],
      );
      const view = webhookView(row);
      await this.changes.record(em, tenant, { action: 'create', objectType: 'webhook', objectId: row.id, after: view });
      return { ...view, secret };
    });
  }

  async list(tenant: Tenant): Promise<WebhookView[]> {
    const rows: WebhookRow[] = await this.db.query(
      `SELECT ${VIEW_COLUMNS} FROM webhooks WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY id`,
      [tenant.organizationId],
    );
    return rows.map(webhookView);
  }

  /** Soft delete: no new deliveries; open ones are cancelled. */
  remove(tenant: Tenant, id: number): Promise<WebhookView> {
    return this.db.transaction(async (em) => {
      const before = webhookView(await this.find(em, tenant, id, true));
      const [row]: WebhookRow[] = await em.query(`WITH u AS (UPDATE webhooks SET deleted_at = now(), updated_at = now() WHERE id = $1 RETURNING ${VIEW_COLUMNS}) SELECT * FROM u`, [id]);
      await em.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now() WHERE webhook_id = $1 AND status IN ('pending', 'retrying')`,
        [id],
      );
      const after = webhookView(row);
      await this.changes.record(em, tenant, { action: 'delete', objectType: 'webhook', objectId: id, before, after });
      return after;
    });
  }

  async deliveries(tenant: Tenant, id: number, query: PageQuery): Promise<DeliveryListResponse> {
    await this.find(this.db.manager, tenant, id);
    const [{ total }]: Array<{ total: number }> = await this.db.query(`SELECT count(*)::int AS total FROM webhook_deliveries WHERE webhook_id = $1`, [id]);
    const rows: DeliveryRow[] = await this.db.query(
      `SELECT d.id, d.payload, d.type, d.status, d.attempts, d.created_at, d.delivered_at,
              (SELECT json_agg(json_build_object('attempt', a.attempt, 'status', a.status, 'response_code', a.response_code, 'error', a.error,
                                                 'duration_ms', a.duration_ms, 'started_at', a.started_at, 'finished_at', a.finished_at)
                               ORDER BY a.attempt, a.id)
                 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS attempt_rows
         FROM webhook_deliveries d
        WHERE d.webhook_id = $1
        ORDER BY d.id DESC
        LIMIT $2 OFFSET $3`,
      [id, query.limit, (query.page - 1) * query.limit],
    );
    return { status: 'ok', deliveries: rows.map(deliveryView), page: query.page, limit: query.limit, total };
  }

  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<WebhookRow> {
    const [row]: WebhookRow[] = await em.query(
      `SELECT ${VIEW_COLUMNS} FROM webhooks WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
      [id, tenant.organizationId],
    );
    if (!row) throw AppError.notFound('webhook');
    return row;
  }
}

function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: String(row.id),
    event_id: row.payload.id,
    type: row.type,
    status: row.status,
    attempt_count: row.attempts,
    created_at: row.created_at.toISOString(),
    delivered_at: row.delivered_at ? row.delivered_at.toISOString() : null,
    attempts: (row.attempt_rows ?? []).map((a) => ({ ...a, started_at: iso(a.started_at), finished_at: iso(a.finished_at) })),
  };
}
