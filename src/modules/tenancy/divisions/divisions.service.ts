import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OwnedWrites, UNCHANGED } from '../../../common/database/owned-writes.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import { AppError } from '../../../common/errors/app-error.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { timestampsView } from '../../../common/http/timestamps.js';
import { Division } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/index.js';
import type { CreateDivisionInput, DivisionView, UpdateDivisionInput } from './dto/division.dto.js';
import { findOwned } from '../../../common/database/find-owned.js';

/** Advisory lock class for an organization's division tree: creates, moves and deletes happen one at a time. */
const TREE_LOCK = 7402;

const UNIQUE = uniqueViolation({
  divisions_name: { field: 'division.name', message: 'is already used by another division of this organization' },
});

export function divisionView(d: Division): DivisionView {
  return {
    id: d.id,
    name: d.name,
    parent_id: d.parentId,
    ancestor_ids: d.ancestorIds,
    ...timestampsView(d),
  };
}

/**
 * The organization's division tree (contract §5, §7). The root exists from the bootstrap and is neither moved nor
 * deleted; `ancestor_ids` is the path from the root down to the division itself, kept right when a subtree moves.
 */
@Injectable()
export class DivisionsService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'division', view: divisionView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, input: CreateDivisionInput): Promise<DivisionView> {
    return this.db.transaction(async (em) => {
      await this.lockTree(em, tenant);
      const parent = await this.parent(em, tenant, input.parent_id);
      const division = em.create(Division, { organizationId: tenant.organizationId, parentId: parent.id, name: input.name, ancestorIds: parent.ancestorIds });
      await em.insert(Division, division).catch(UNIQUE);
      await em.update(Division, division.id, { ancestorIds: [...parent.ancestorIds, division.id] });
      return this.writes.created(em, tenant, await em.findOneByOrFail(Division, { id: division.id }));
    });
  }

  /** Tree order: ancestor paths compare element by element, so each division follows its parent, siblings by id. */
  async list(tenant: Tenant): Promise<DivisionView[]> {
    const divisions = await this.db.manager.find(Division, { where: { organizationId: tenant.organizationId }, order: { ancestorIds: 'ASC' } });
    return divisions.map(divisionView);
  }

  async get(tenant: Tenant, id: number): Promise<DivisionView> {
    return divisionView(await this.find(this.db.manager, tenant, id));
  }

  /** Partial: rename, or move (with its subtree) under another division. A request that changes nothing writes nothing. */
  update(tenant: Tenant, id: number, input: UpdateDivisionInput): Promise<DivisionView> {
    return this.writes.update(tenant, (em) => this.findInTree(em, tenant, id), async (division, em) => {
      const moves = input.parent_id !== undefined && input.parent_id !== division.parentId;
      if (!moves && (input.name === undefined || input.name === division.name)) return UNCHANGED;
      if (moves) await this.move(em, tenant, division, input.parent_id as number);
      if (input.name !== undefined) division.name = input.name;
    });
  }

  /** Soft delete, only of a leaf that no customer and no campaign uses; the name gets a marker and is free again. */
  remove(tenant: Tenant, id: number): Promise<DivisionView> {
    return this.writes.remove(tenant, (em) => this.findInTree(em, tenant, id), {
      check: async (division, em) => {
        if (division.parentId === null) throw AppError.validation('division_id', 'is the root division, which cannot be deleted');
        await this.assertUnused(em, tenant, division);
      },
    });
  }

  /** The division, locked after the organization's tree (see TREE_LOCK). */
  private async findInTree(em: EntityManager, tenant: Tenant, id: number): Promise<Division> {
    await this.lockTree(em, tenant);
    return this.find(em, tenant, id, true);
  }

  private async lockTree(em: EntityManager, tenant: Tenant): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock($1, $2)`, [TREE_LOCK, tenant.organizationId]);
  }

  /** A live division of the organization, named in the path; `lock` holds it for the rest of the transaction. */
  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Division> {
    return findOwned(em, Division, { id }, tenant.organizationId, 'division', lock);
  }

  /** A parent named in the body: a value to validate, not an object the path names, so a miss is `validation`. */
  private async parent(em: EntityManager, tenant: Tenant, id: number): Promise<Division> {
    const parent = await em.findOneBy(Division, { id, organizationId: tenant.organizationId });
    if (!parent) throw AppError.validation('division.parent_id', 'is not a division of this organization');
    return parent;
  }

  private async move(em: EntityManager, tenant: Tenant, division: Division, parentId: number): Promise<void> {
    if (division.parentId === null) throw AppError.validation('division.parent_id', 'cannot be set: the root division cannot be moved');
    const parent = await this.parent(em, tenant, parentId);
    if (parent.ancestorIds.includes(division.id)) {
      throw AppError.validation('division.parent_id', 'cannot be the division itself or one of its descendants');
    }
    // Every node whose path passes through the division (at its depth) trades the path above it for the new one.
    const depth = division.ancestorIds.length;
    await em.query(
      `UPDATE divisions SET ancestor_ids = $2::int[] || ancestor_ids[$3:], updated_at = now()
        WHERE organization_id = $1 AND ancestor_ids[$3] = $4`,
      [tenant.organizationId, parent.ancestorIds, depth, division.id],
    );
    division.parentId = parent.id;
    division.ancestorIds = [...parent.ancestorIds, division.id];
  }

  private async assertUnused(em: EntityManager, tenant: Tenant, division: Division): Promise<void> {
    const [uses]: Array<{ children: number; customers: number; campaigns: number }> = await em.query(
      `SELECT (SELECT count(*)::int FROM divisions WHERE organization_id = $1 AND parent_id = $2 AND deleted_at IS NULL) AS children,
              (SELECT count(*)::int FROM customers WHERE organization_id = $1 AND division_id = $2 AND erased_at IS NULL) AS customers,
              (SELECT count(*)::int FROM campaigns WHERE organization_id = $1 AND division_id = $2 AND deleted_at IS NULL) AS campaigns`,
      [tenant.organizationId, division.id],
    );
    const blockers = [
      uses.children ? `${uses.children} child division(s)` : '',
      uses.customers ? `${uses.customers} customer(s)` : '',
      uses.campaigns ? `${uses.campaigns} campaign(s)` : '',
    ].filter(Boolean);
    if (blockers.length) throw AppError.validation('division_id', `cannot be deleted while it has ${blockers.join(', ')}; move or delete them first`);
  }
}
