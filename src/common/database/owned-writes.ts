import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../clock.js';
import type { Tenant } from '../http/request-context.js';
import { softDelete, softDeleteBelow } from './soft-delete.js';

type Action = 'create' | 'update' | 'delete';

/** Where a write records its change, inside its transaction: the audit module's ConfigChangesService. */
export interface ChangeLog {
  record(em: EntityManager, tenant: Tenant, change: { action: Action; objectType: string; objectId: number; before?: object; after: object }): Promise<void>;
}

/** What an update's `change` answers when the request changes nothing: nothing is written, the object answers as it is. */
export const UNCHANGED = Symbol('unchanged');

type Outcome = void | typeof UNCHANGED;

/** A kind of object the management API creates, updates and soft-deletes. */
export interface OwnedKind<T, V extends object> {
  /** Its name in the audit log. */
  objectType: string;
  /** Its answer; `em` is the write's transaction, for a view that reads more than the row. */
  view(row: T, em: EntityManager): V | Promise<V>;
  /** Turns a unique-index violation of a create's or an update's save into its `validation` error (uniqueViolation). */
  unique?: (error: unknown) => never;
}

/**
 * The create, the update and the soft delete of one kind of object, each in its own transaction, the change recorded
 * in the log with the views before and after. An update or a delete finds and locks the row with `lock` (a miss is
 * its 404), views it, changes and saves it; the answer is the view after.
 */
export class OwnedWrites<T extends { id: number; name: string; deletedAt: Date | null }, V extends object> {
  constructor(
    private readonly db: DataSource,
    private readonly log: ChangeLog,
    private readonly clock: Clock,
    private readonly kind: OwnedKind<T, V>,
  ) {}

  /** `build` checks the request and makes the new row (its parent found and locked first); the row is then saved. */
  create(tenant: Tenant, build: (em: EntityManager) => Promise<T>): Promise<V> {
    return this.db.transaction(async (em) => {
      const row = await build(em);
      await em.save(row).catch(this.kind.unique);
      return this.created(em, tenant, row);
    });
  }

  /** A row the caller's transaction has just written, recorded as created: its view. */
  async created(em: EntityManager, tenant: Tenant, row: T): Promise<V> {
    const after = await this.kind.view(row, em);
    await this.log.record(em, tenant, { action: 'create', objectType: this.kind.objectType, objectId: row.id, after });
    return after;
  }

  /** `change` checks the request against the locked row and assigns it. */
  update(tenant: Tenant, lock: (em: EntityManager) => Promise<T>, change: (row: T, em: EntityManager) => Outcome | Promise<Outcome>): Promise<V> {
    return this.db.transaction(async (em) => {
      const row = await lock(em);
      const before = await this.kind.view(row, em);
      if ((await change(row, em)) === UNCHANGED) return before;
      await em.save(row).catch(this.kind.unique);
      return this.recorded(em, tenant, 'update', row, before);
    });
  }

  /** Soft delete (softDelete), with what lies `below` the row (softDeleteBelow); `check` may refuse it first. */
  remove(
    tenant: Tenant,
    lock: (em: EntityManager) => Promise<T>,
    { below, check }: { below?: Parameters<typeof softDeleteBelow>[1]; check?: (row: T, em: EntityManager) => Promise<void> } = {},
  ): Promise<V> {
    return this.db.transaction(async (em) => {
      const row = await lock(em);
      await check?.(row, em);
      const before = await this.kind.view(row, em);
      const at = new Date(this.clock.now());
      if (below) await softDeleteBelow(em, below, row.id, at);
      await softDelete(em, row, at);
      return this.recorded(em, tenant, 'delete', row, before);
    });
  }

  private async recorded(em: EntityManager, tenant: Tenant, action: Action, row: T, before: V): Promise<V> {
    const after = await this.kind.view(row, em);
    await this.log.record(em, tenant, { action, objectType: this.kind.objectType, objectId: row.id, before, after });
    return after;
  }
}
