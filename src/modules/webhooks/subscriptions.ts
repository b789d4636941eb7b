import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../common/database/unit-of-work.js';
import { VersionedCache } from '../../common/versioned-cache.js';
import type { WebhookEventType } from './occurrences.js';

/**
 * The webhook event types each organization subscribes to, read once per rules version: creating or deleting a
 * webhook bumps `organizations.rules_version` (ConfigChangesService), as every configuration write does. Evaluations
 * of an organization without webhooks then build no webhook events at all. Read on the caller's connection (`db`),
 * as the rules are (RulesCacheService).
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly cache = new VersionedCache<Set<WebhookEventType>>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  typesFor(organizationId: number, rulesVersion: number, db: Queryable = this.db): Promise<Set<WebhookEventType>> {
    return this.cache.get(organizationId, rulesVersion, async () => {
      const rows = (await db.query(`SELECT DISTINCT unnest(event_types) AS type FROM webhooks WHERE organization_id = $1 AND deleted_at IS NULL`, [organizationId])) as Array<{
        type: WebhookEventType;
      }>;
      return new Set(rows.map((r) => r.type));
    });
  }
}
