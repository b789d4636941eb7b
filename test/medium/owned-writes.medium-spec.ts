import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DataSource, type EntityManager } from 'typeorm';
import { SettableClock } from '../../src/common/clock.js';
import { findOwned } from '../../src/common/database/find-owned.js';
import { type ChangeLog, OwnedWrites, UNCHANGED } from '../../src/common/database/owned-writes.js';
import { uniqueViolation } from '../../src/common/database/unique-violation.js';
import { AppError } from '../../src/common/errors/app-error.js';
import type { Tenant } from '../../src/common/http/request-context.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { Offer } from '../../src/database/entities/index.js';
import { ConfigChangesService } from '../../src/modules/audit/config-changes.service.js';
import type { OfferView } from '../../src/modules/campaigns/offers/dto/offer.dto.js';
import { offerView } from '../../src/modules/campaigns/offers/offers.service.js';
import { START } from './support/module.js';
import { seedTenant } from './support/seed.js';

const KIND = {
  objectType: 'offer',
  view: offerView,
  unique: uniqueViolation({ offers_name: { field: 'offer.name', message: 'is already used by another offer of this organization' } }),
};

interface Entry {
  action: string;
  object_id: string;
  before: object | null;
  after: object | null;
}

/**
 * OwnedWrites on the real database, with offers as its kind and the audit module's change log: each write answers
 * its view and records it with the change, in the write's own transaction; a write refused, failed or that changes
 * nothing leaves the row as it was and no entry.
 */
describe('OwnedWrites on the real database', () => {
  // The database and a clock alone: OwnedWrites needs nothing of the modules a medium context starts.
  const db = new DataSource(dataSourceOptions(process.env.DATABASE_URL!, 2));
  const clock = new SettableClock(START);
  const changes = new ConfigChangesService();
  const writes: OwnedWrites<Offer, OfferView> = new OwnedWrites(db, changes, clock, KIND);
  let tenant: Tenant;

  beforeAll(() => db.initialize());
  afterAll(() => db.destroy());

  // An organization of its own for each test: its audit log holds that test's entries alone.
  beforeEach(async () => {
    tenant = await seedTenant(db);
  });

  const lock = (id: number) => (em: EntityManager) => findOwned(em, Offer, { id }, tenant.organizationId, 'offer', true);
  const create = (name: string) => writes.create(tenant, async (em) => em.create(Offer, { organizationId: tenant.organizationId, name, points: 5, description: null }));
  const stored = (id: number) => db.manager.findOne(Offer, { where: { id }, withDeleted: true });
  const entries = (): Promise<Entry[]> =>
    db.query(`SELECT action, object_id, before, after FROM audit_log WHERE organization_id = $1 ORDER BY id`, [tenant.organizationId]);

  it('create saves the row and records its view as created', async () => {
    const view = await create('Coffee');
    expect(view).toMatchObject({ name: 'Coffee', points: 5, description: null });
    expect(offerView((await stored(view.id))!)).toEqual(view);
    expect(await entries()).toEqual([{ action: 'create', object_id: String(view.id), before: null, after: view }]);
  });

  it('update saves the change and records the views before and after', async () => {
    const created = await create('Coffee');
    const view = await writes.update(tenant, lock(created.id), (offer) => {
      offer.name = 'Tea';
    });
    expect(view).toMatchObject({ id: created.id, name: 'Tea', points: 5 });
    expect((await stored(created.id))?.name).toBe('Tea');
    expect((await entries())[1]).toEqual({ action: 'update', object_id: String(created.id), before: created, after: view });
  });

  it('an update that changes nothing answers the object as it is, writes nothing and records nothing', async () => {
    const created = await create('Coffee');
    const view = await writes.update(tenant, lock(created.id), () => UNCHANGED);
    expect(view).toEqual(created);
    expect(offerView((await stored(created.id))!)).toEqual(created);
    expect(await entries()).toHaveLength(1);
  });

  it("remove soft-deletes the row as of the clock's time, its name marked, and records it", async () => {
    const created = await create('Coffee');
    const view = await writes.remove(tenant, lock(created.id));
    const at = new Date(START).toISOString();
    expect(view).toMatchObject({ id: created.id, name: `Coffee [DELETED AT ${at}]`, deleted_at: at });
    expect((await stored(created.id))?.deletedAt?.toISOString()).toBe(at);
    expect((await entries())[1]).toEqual({ action: 'delete', object_id: String(created.id), before: created, after: view });
  });

  it('a remove its check refuses answers the check’s error, deletes nothing and records nothing', async () => {
    const created = await create('Coffee');
    const refused = writes.remove(tenant, lock(created.id), {
      check: async () => {
        throw AppError.validation('offer_id', 'is in use');
      },
    });
    await expect(refused).rejects.toMatchObject({ code: 'validation', details: [{ field: 'offer_id', message: 'is in use' }] });
    expect(offerView((await stored(created.id))!)).toEqual(created);
    expect(await entries()).toHaveLength(1);
  });

  it('an update whose save fails answers the save’s error and records nothing', async () => {
    await create('Coffee');
    const tea = await create('Tea');
    const clash = writes.update(tenant, lock(tea.id), (offer) => {
      offer.name = 'COFFEE';
    });
    await expect(clash).rejects.toMatchObject({ code: 'validation', details: [{ field: 'offer.name', message: 'is already used by another offer of this organization' }] });
    expect((await stored(tea.id))?.name).toBe('Tea');
    expect((await entries()).map((e) => e.action)).toEqual(['create', 'create']);
  });

  it("records the entry in the write's transaction: a failure after it takes back the entry and the change", async () => {
    const created = await create('Coffee');
    const failing: ChangeLog = {
      record: async (em, t, change) => {
        await changes.record(em, t, change);
        throw new Error('failed after the entry');
      },
    };
    const failingWrites = new OwnedWrites(db, failing, clock, KIND);
    const renamed = failingWrites.update(tenant, lock(created.id), (offer) => {
      offer.name = 'Tea';
    });
    await expect(renamed).rejects.toThrow('failed after the entry');
    await expect(failingWrites.remove(tenant, lock(created.id))).rejects.toThrow('failed after the entry');
    await expect(failingWrites.create(tenant, async (em) => em.create(Offer, { organizationId: tenant.organizationId, name: 'Tea', points: 0, description: null }))).rejects.toThrow(
      'failed after the entry',
    );
    expect(offerView((await stored(created.id))!)).toEqual(created);
    expect(await db.manager.countBy(Offer, { organizationId: tenant.organizationId })).toBe(1);
    expect(await entries()).toHaveLength(1);
  });
});
