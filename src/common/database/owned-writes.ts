import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../clock.js';
import type { Tenant } from '../http/request-context.js';
import { softDelete, softDeleteBelow } from './soft-delete.js';

/** Where a write records its change, inside its transaction: the audit module's ConfigChangesService. */
export interface ChangeLog {
  record(
    em: EntityManager,
    tenant: Tenant,
    change: { action: 'update' | 'delete'; objectType: string; objectId: number; before: object; after: object },
  ): Promise<void>;
}

/** What an update's `change` answers when the request changes nothing: nothing is written, the object answers as it is. */
export const UNCHANGED = Symbol('unchanged');

type Outcome = void | typeof UNCHANGED;

/** A kind of object the management API updates and soft-deletes. */
export interface OwnedKind<T, V extends object> {
  /** Its name in the audit log. */
  objectType: string;
  view(row: T): V;
  /** Turns a unique-index violation of the update's save into its `validation` error (uniqueViolation). */
  unique?: (error: unknown) => never;
}

/**
 * The update and the soft delete of one kind of object, each in its own transaction: the row found and locked by
 * `lock` (a miss is its 404), the view before, the change and its save, the view after, and the change recorded in
 * the log with both views. The answer is the view after.
 */
export class OwnedWrites<T extends { id: number; name: string; deletedAt: Date | null }, V extends object> {
  constructor(
    private readonly db: DataSource,
    private readonly log: ChangeLog,
    private readonly clock: Clock,
    private readonly kind: OwnedKind<T, V>,
  ) {}

  /** `change` checks the request against the locked row and assigns it. */
  update(tenant: Tenant, lock: (em: EntityManager) => Promise<T>, change: (row: T, em: EntityManager) => Outcome | Promise<Outcome>): Promise<V> {
    return this.db.transaction(async (em) => {
      const row = await lock(em);
      const before = this.kind.view(row);
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
      const before = this.kind.view(row);
      const at = new Date(this.clock.now());
      if (below) await softDeleteBelow(em, below, row.id, at);
      await softDelete(em, row, at);
      return this.recorded(em, tenant, 'delete', row, before);
    });
  }

  private async recorded(em: EntityManager, tenant: Tenant, action: 'update' | 'delete', row: T, before: V): Promise<V> {
    const after = this.kind.view(row);
    await this.log.record(em, tenant, { action, objectType: this.kind.objectType, objectId: row.id, before, after });
    return after;
  }
}
