import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../common/database/unit-of-work.js';
import type { WebhookEventType } from './occurrences.js';

const MAX_ORGANIZATIONS = 1000;

/**
 * The webhook event types each organization subscribes to, read once per rules version: creating or deleting a
 * webhook bumps `organizations.rules_version` (ConfigChangesService), as every configuration write does. Evaluations
 * of an organization without webhooks then build no webhook events at all. Read on the caller's connection (`db`),
 * as the rules are (RulesCacheService).
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly cache = new Map<number, { version: number; types: Promise<Set<WebhookEventType>> }>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  typesFor(organizationId: number, rulesVersion: number, db: Queryable = this.db): Promise<Set<WebhookEventType>> {
    const cached = this.cache.get(organizationId);
    if (cached && cached.version >= rulesVersion) return cached.types;
    const types = db
      .query(`SELECT DISTINCT unnest(event_types) AS type FROM webhooks WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId])
      .then((rows) => new Set((rows as Array<{ type: WebhookEventType }>).map((r) => r.type)));
    types.catch(() => this.cache.get(organizationId)?.types === types && this.cache.delete(organizationId));
    this.cache.delete(organizationId);
    if (this.cache.size >= MAX_ORGANIZATIONS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(organizationId, { version: rulesVersion, types });
    return types;
  }
}
