import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Tenant } from '../../common/http/request-context.js';
import { Organization } from '../../database/entities/index.js';
import type { AuditAction } from '../../database/entities/audit-entry.entity.js';

export interface ConfigChange {
  action: AuditAction;
  objectType: string;
  objectId: number | string;
  before?: object | null;
  after?: object | null;
}

/** Runs inside the write's transaction, after the change is recorded (scheduled delivery keeps its jobs in step). */
export type ConfigChangeListener = (em: EntityManager, tenant: Tenant, change: ConfigChange) => Promise<void>;

/**
 * Every write of the management API goes through here, inside its transaction: the change is written to the audit
 * log (who, what, before, after, when) and the organization's rules version is bumped, so every API and worker
 * process recompiles the organization's rules before it evaluates its next event.
 */
@Injectable()
export class ConfigChangesService {
  private readonly listeners: ConfigChangeListener[] = [];

  /** Registers a listener for every later change (modules that derive state from the configuration). */
  onChange(listener: ConfigChangeListener): void {
    this.listeners.push(listener);
  }

  async record(em: EntityManager, tenant: Tenant, change: ConfigChange): Promise<void> {
    await em.query(
      `INSERT INTO audit_log (organization_id, api_key_id, action, object_type, object_id, before, after)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        tenant.organizationId,
        tenant.apiKeyId,
        change.action,
        change.objectType,
        String(change.objectId),
        change.before ? JSON.stringify(change.before) : null,
        change.after ? JSON.stringify(change.after) : null,
      ],
    );
    await em.increment(Organization, { id: tenant.organizationId }, 'rulesVersion', 1);
    for (const listener of this.listeners) await listener(em, tenant, change);
  }
}
