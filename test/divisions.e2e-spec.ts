import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import type request from 'supertest';
import type { Response } from 'supertest';
import { createTestApp } from './support/app.js';
import { waitFor } from './support/worker.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface DivisionBody {
  id: number;
  name: string;
  parent_id: number | null;
  ancestor_ids: number[];
  created_at: string;
  updated_at: string;
  deleted_at?: string;
}

describe('management: divisions', () => {
  let app: INestApplication;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let counter = 0;
  const nextName = () => `Division ${++counter}`;

  async function createDivision(owner: TestTenant, parentId: number, name = nextName()): Promise<DivisionBody> {
    const res = await api(app, owner).post('/management/divisions').send({ division: { name, parent_id: parentId } }).expect(201);
    return res.body.division;
  }

  async function getDivision(owner: TestTenant, id: number): Promise<DivisionBody> {
    return (await api(app, owner).get(`/management/divisions/${id}`).expect(200)).body.division;
  }

  async function listDivisions(owner: TestTenant): Promise<DivisionBody[]> {
    return (await api(app, owner).get('/management/divisions').expect(200)).body.divisions;
  }

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app, { multi_org_enabled: true });
    otherTenant = await createTenant(app, { multi_org_enabled: true });
  });
  afterAll(() => app.close());

  describe('the root division', () => {
    it('exists from the bootstrap: the only division of a new organization', async () => {
      const own = await createTenant(app);
      const res = await api(app, own).get('/management/divisions').expect(200);
      const root = {
        id: own.rootDivisionId,
        name: 'Root',
        parent_id: null,
        ancestor_ids: [own.rootDivisionId],
        created_at: expect.stringMatching(ISO_UTC_MS),
        updated_at: expect.stringMatching(ISO_UTC_MS),
      };
      expect(res.body).toEqual({ status: 'ok', divisions: [root] });
      expect((await api(app, own).get(`/management/divisions/${own.rootDivisionId}`).expect(200)).body).toEqual({ status: 'ok', division: root });
    });

    it('cannot be deleted or moved (400 validation), but can be renamed', async () => {
      const own = await createTenant(app);
      const child = await createDivision(own, own.rootDivisionId);
      expect(expectError(await api(app, own).delete(`/management/divisions/${own.rootDivisionId}`), 400, 'validation')).toEqual(['division_id']);
      const move = await api(app, own).put(`/management/divisions/${own.rootDivisionId}`).send({ division: { parent_id: child.id } });
      expect(expectError(move, 400, 'validation')).toEqual(['division.parent_id']);
      const renamed = await api(app, own).put(`/management/divisions/${own.rootDivisionId}`).send({ division: { name: 'Headquarters' } }).expect(200);
      expect(renamed.body.division).toEqual(expect.objectContaining({ id: own.rootDivisionId, name: 'Headquarters', parent_id: null }));
      expect(renamed.body.division.ancestor_ids).toEqual([own.rootDivisionId]);
    });
  });

  describe('POST /management/divisions', () => {
    it('answers 201 with exactly the division, ancestor_ids from the root down to itself, and GET answers it the same', async () => {
      const res = await api(app, tenant).post('/management/divisions').send({ division: { name: 'Stores', parent_id: tenant.rootDivisionId } }).expect(201);
      const id = res.body.division.id as number;
      expect(res.body).toEqual({
        status: 'ok',
        division: {
          id: expect.any(Number),
          name: 'Stores',
          parent_id: tenant.rootDivisionId,
          ancestor_ids: [tenant.rootDivisionId, id],
          created_at: expect.stringMatching(ISO_UTC_MS),
          updated_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      expect((await api(app, tenant).get(`/management/divisions/${id}`).expect(200)).body).toEqual(res.body);
    });

    it('builds a three-level tree with the right ancestor_ids, listed in tree order', async () => {
      const own = await createTenant(app, { multi_org_enabled: true });
      const root = own.rootDivisionId;
      const region = await createDivision(own, root, 'Region North');
      const city = await createDivision(own, region.id, 'City Lille');
      const store = await createDivision(own, city.id, 'Store 12');
      const otherRegion = await createDivision(own, root, 'Region South');
      const otherCity = await createDivision(own, region.id, 'City Arras');
      expect(region).toEqual(expect.objectContaining({ parent_id: root, ancestor_ids: [root, region.id] }));
      expect(city).toEqual(expect.objectContaining({ parent_id: region.id, ancestor_ids: [root, region.id, city.id] }));
      expect(store).toEqual(expect.objectContaining({ parent_id: city.id, ancestor_ids: [root, region.id, city.id, store.id] }));
      expect(await getDivision(own, store.id)).toEqual(store);
      const listed = await listDivisions(own);
      expect(listed.map((d) => d.id)).toEqual([root, region.id, city.id, store.id, otherCity.id, otherRegion.id]);
      expect(listed.slice(1)).toEqual([region, city, store, otherCity, otherRegion]);
    });

    it('lets a customer be created in a child division (POST /users with division_id)', async () => {
      const region = await createDivision(tenant, tenant.rootDivisionId);
      const store = await createDivision(tenant, region.id);
      const res = await api(app, tenant).post('/users').send({ user: { external_id: `in-store-${Date.now()}`, division_id: store.id } }).expect(201);
      expect(res.body.user.division_id).toBe(store.id);
      const read = await api(app, tenant).get(`/users/${res.body.user.id}`).expect(200);
      expect(read.body.user.division_id).toBe(store.id);
    });

    it('rejects a name already used by a live division, in any case, with 400 validation on division.name', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const res = await api(app, tenant).post('/management/divisions').send({ division: { name: division.name.toUpperCase(), parent_id: division.id } });
      expect(expectError(res, 400, 'validation')).toEqual(['division.name']);
      const root = await api(app, tenant).post('/management/divisions').send({ division: { name: 'root', parent_id: tenant.rootDivisionId } });
      expect(expectError(root, 400, 'validation')).toEqual(['division.name']);
    });

    it('allows a name used in another organization', async () => {
      const theirs = await createDivision(otherTenant, otherTenant.rootDivisionId);
      const mine = await createDivision(tenant, tenant.rootDivisionId, theirs.name);
      expect(mine.name).toBe(theirs.name);
    });

    it('answers 400 missing_data naming `division` when the wrapper is absent', async () => {
      expect(expectError(await api(app, tenant).post('/management/divisions').send({}), 400, 'missing_data')).toEqual(['division']);
    });

    it.each([
      ['an absent parent_id', { name: 'Orphan' }, ['division.parent_id']],
      ['an absent name', { parent_id: 1 }, ['division.name']],
      ['both absent', {}, ['division.name', 'division.parent_id']],
      ['a null parent_id', { name: 'Orphan', parent_id: null }, ['division.parent_id']],
    ])('answers 400 missing_data for %s', async (_label, division, fields) => {
      expect(expectError(await api(app, tenant).post('/management/divisions').send({ division }), 400, 'missing_data')).toEqual(fields);
    });

    it.each([
      ['top level', (parent: number) => ({ division: { name: 'X', parent_id: parent }, organization_id: 1 }), ['organization_id']],
      ['inside division', (parent: number) => ({ division: { name: 'X', parent_id: parent, ancestor_ids: [1] } }), ['division.ancestor_ids']],
    ])('answers 400 argument_error for unknown members %s and creates nothing', async (_label, body, fields) => {
      const before = await listDivisions(tenant);
      expect(expectError(await api(app, tenant).post('/management/divisions').send(body(tenant.rootDivisionId)), 400, 'argument_error')).toEqual(fields);
      expect(await listDivisions(tenant)).toEqual(before);
    });

    it.each([
      ['an empty name', { name: '' }, 'division.name'],
      ['a blank name', { name: '  ' }, 'division.name'],
      ['a name over 100 characters', { name: 'd'.repeat(101) }, 'division.name'],
      ['a name that is not a string', { name: 12 }, 'division.name'],
      ['a parent_id that is not an integer', { parent_id: '1' }, 'division.parent_id'],
      ['a parent_id of 0', { parent_id: 0 }, 'division.parent_id'],
      ['a parent_id beyond the integer range', { parent_id: 99_999_999_999 }, 'division.parent_id'],
      ['a parent that does not exist', { parent_id: 2_000_000_000 }, 'division.parent_id'],
    ])('answers 400 validation for %s', async (_label, member, field) => {
      const division = { name: nextName(), parent_id: tenant.rootDivisionId, ...member };
      expect(expectError(await api(app, tenant).post('/management/divisions').send({ division }), 400, 'validation')).toEqual([field]);
    });

    it('answers 400 validation (not 404) for a parent of another organization, and creates nothing', async () => {
      const theirs = await createDivision(otherTenant, otherTenant.rootDivisionId);
      const before = await listDivisions(tenant);
      for (const parentId of [theirs.id, otherTenant.rootDivisionId]) {
        const res = await api(app, tenant).post('/management/divisions').send({ division: { name: nextName(), parent_id: parentId } });
        expect(expectError(res, 400, 'validation')).toEqual(['division.parent_id']);
      }
      expect(await listDivisions(tenant)).toEqual(before);
      expect((await listDivisions(otherTenant)).map((d) => d.id)).toContain(theirs.id);
    });
  });

  describe('GET /management/divisions and /management/divisions/:division_id', () => {
    it("lists only the organization's own divisions", async () => {
      const theirs = await createDivision(otherTenant, otherTenant.rootDivisionId);
      const ids = (await listDivisions(tenant)).map((d) => d.id);
      expect(ids).toContain(tenant.rootDivisionId);
      expect(ids).not.toContain(theirs.id);
      expect(ids).not.toContain(otherTenant.rootDivisionId);
    });

    it.each([
      ['an unknown id', '2000000000'],
      ['an id that is not a number', 'north'],
      ['an id of 0', '0'],
    ])('answers 404 not_found for %s', async (_label, id) => {
      expectError(await api(app, tenant).get(`/management/divisions/${id}`), 404, 'not_found');
    });

    it("answers 404 not_found for another organization's division on GET, PUT and DELETE, and leaves it as it was", async () => {
      const theirs = await createDivision(otherTenant, otherTenant.rootDivisionId);
      for (const id of [theirs.id, otherTenant.rootDivisionId]) {
        expectError(await api(app, tenant).get(`/management/divisions/${id}`), 404, 'not_found');
        expectError(await api(app, tenant).put(`/management/divisions/${id}`).send({ division: { name: nextName() } }), 404, 'not_found');
        expectError(await api(app, tenant).delete(`/management/divisions/${id}`), 404, 'not_found');
      }
      expect(await getDivision(otherTenant, theirs.id)).toEqual(theirs);
    });
  });

  describe('PUT /management/divisions/:division_id', () => {
    it('renames a division and changes nothing else', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const name = nextName();
      const res = await api(app, tenant).put(`/management/divisions/${division.id}`).send({ division: { name } }).expect(200);
      expect(res.body).toEqual({ status: 'ok', division: { ...division, name, updated_at: expect.stringMatching(ISO_UTC_MS) } });
    });

    it('answers the division unchanged for an empty body or the same values', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const empty = await api(app, tenant).put(`/management/divisions/${division.id}`).send({ division: {} }).expect(200);
      expect(empty.body).toEqual({ status: 'ok', division });
      const same = await api(app, tenant).put(`/management/divisions/${division.id}`).send({ division: { name: division.name, parent_id: division.parent_id } });
      expect(same.body).toEqual({ status: 'ok', division });
    });

    it('moves a division with its subtree, rewriting every ancestor_ids below it', async () => {
      const own = await createTenant(app, { multi_org_enabled: true });
      const root = own.rootDivisionId;
      const north = await createDivision(own, root);
      const city = await createDivision(own, north.id);
      const store = await createDivision(own, city.id);
      const south = await createDivision(own, root);
      const res = await api(app, own).put(`/management/divisions/${city.id}`).send({ division: { parent_id: south.id } }).expect(200);
      expect(res.body.division).toEqual({ ...city, parent_id: south.id, ancestor_ids: [root, south.id, city.id], updated_at: expect.any(String) });
      expect(await getDivision(own, store.id)).toEqual(expect.objectContaining({ parent_id: city.id, ancestor_ids: [root, south.id, city.id, store.id] }));
      expect(await getDivision(own, north.id)).toEqual(north);
      expect((await listDivisions(own)).map((d) => d.id)).toEqual([root, north.id, south.id, city.id, store.id]);
    });

    it('refuses to move a division under itself or its own subtree (400 validation) and changes nothing', async () => {
      const top = await createDivision(tenant, tenant.rootDivisionId);
      const child = await createDivision(tenant, top.id);
      const grandchild = await createDivision(tenant, child.id);
      for (const parentId of [top.id, child.id, grandchild.id]) {
        const res = await api(app, tenant).put(`/management/divisions/${top.id}`).send({ division: { parent_id: parentId } });
        expect(expectError(res, 400, 'validation')).toEqual(['division.parent_id']);
      }
      expect(await getDivision(tenant, top.id)).toEqual(top);
      expect(await getDivision(tenant, grandchild.id)).toEqual(grandchild);
    });

    it('answers validation for a parent of another organization, a taken name or bad values; missing_data and argument_error too', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const other = await createDivision(tenant, tenant.rootDivisionId);
      const put = (body: object) => api(app, tenant).put(`/management/divisions/${division.id}`).send(body);
      expect(expectError(await put({ division: { parent_id: otherTenant.rootDivisionId } }), 400, 'validation')).toEqual(['division.parent_id']);
      expect(expectError(await put({ division: { name: other.name.toLowerCase() } }), 400, 'validation')).toEqual(['division.name']);
      expect(expectError(await put({ division: { name: '' } }), 400, 'validation')).toEqual(['division.name']);
      expect(expectError(await put({ division: { parent_id: null } }), 400, 'validation')).toEqual(['division.parent_id']);
      expect(expectError(await put({}), 400, 'missing_data')).toEqual(['division']);
      expect(expectError(await put({ division: { ancestor_ids: [1] } }), 400, 'argument_error')).toEqual(['division.ancestor_ids']);
      expect(await getDivision(tenant, division.id)).toEqual(division);
    });
  });

  describe('DELETE /management/divisions/:division_id', () => {
    it('soft-deletes an unused leaf: the marker, then 404, gone from the list, name free, no longer a parent or a customer division', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const res = await api(app, tenant).delete(`/management/divisions/${division.id}`).expect(200);
      const deletedAt = res.body.division.deleted_at as string;
      expect(deletedAt).toMatch(ISO_UTC_MS);
      expect(res.body).toEqual({
        status: 'ok',
        division: { ...division, name: `${division.name} [DELETED AT ${deletedAt}]`, updated_at: expect.stringMatching(ISO_UTC_MS), deleted_at: deletedAt },
      });
      expectError(await api(app, tenant).get(`/management/divisions/${division.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/divisions/${division.id}`).send({ division: { name: nextName() } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/divisions/${division.id}`), 404, 'not_found');
      expect((await listDivisions(tenant)).map((d) => d.id)).not.toContain(division.id);

      const child = await api(app, tenant).post('/management/divisions').send({ division: { name: nextName(), parent_id: division.id } });
      expect(expectError(child, 400, 'validation')).toEqual(['division.parent_id']);
      const customer = await api(app, tenant).post('/users').send({ user: { external_id: `late-${Date.now()}`, division_id: division.id } });
      expect(expectError(customer, 400, 'validation')).toEqual(['user.division_id']);
      const again = await createDivision(tenant, tenant.rootDivisionId, division.name);
      expect(again.id).not.toBe(division.id);
    });

    it('refuses a division with child divisions, customers or campaigns (400 validation), then allows it once they are gone', async () => {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      const child = await createDivision(tenant, division.id);
      const remove = () => api(app, tenant).delete(`/management/divisions/${division.id}`);
      const withChild = await remove();
      expect(expectError(withChild, 400, 'validation')).toEqual(['division_id']);
      expect(withChild.body.errors.message).toContain('child');
      await api(app, tenant).delete(`/management/divisions/${child.id}`).expect(200);

      const customer = await createCustomer(app, tenant, { division_id: division.id });
      const withCustomer = await remove();
      expect(expectError(withCustomer, 400, 'validation')).toEqual(['division_id']);
      expect(withCustomer.body.errors.message).toContain('customer');
      await api(app, tenant).put(`/users/${customer.id}`).send({ user: { division_id: tenant.rootDivisionId } }).expect(200);

      const campaign = await createCampaign(app, tenant, { division_id: division.id });
      const withCampaign = await remove();
      expect(expectError(withCampaign, 400, 'validation')).toEqual(['division_id']);
      expect(withCampaign.body.errors.message).toContain('campaign');
      await api(app, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);

      expect(await getDivision(tenant, division.id)).toEqual(expect.objectContaining({ id: division.id, name: division.name }));
      await remove().expect(200);
    });
  });

  /**
   * A delete locks the division row (FOR UPDATE), checks that nothing uses it, and marks it deleted. A placement that
   * checked the division before that commit must not land in it: here a transaction of the test holds the row as the
   * delete does, the placement request starts and waits on the row, and the delete commits.
   */
  describe('a delete committing while a customer or campaign is being placed in the division', () => {
    let db: pg.Client;
    beforeAll(async () => {
      db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
    });
    afterAll(() => db.end());

    async function deleteDuring(place: (divisionId: number) => request.Test): Promise<{ placed: Response; divisionId: number }> {
      const division = await createDivision(tenant, tenant.rootDivisionId);
      await db.query('BEGIN');
      await db.query('SELECT id FROM divisions WHERE id = $1 FOR UPDATE', [division.id]);
      const placing = place(division.id).then((res) => res);
      const waiting = async () =>
        (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))`)).rows[0].n > 0;
      await waitFor(waiting, 10_000, 'the placement to wait on the division row');
      await db.query(`UPDATE divisions SET deleted_at = now(), name = name || ' (deleted)' WHERE id = $1`, [division.id]);
      await db.query('COMMIT');
      return { placed: await placing, divisionId: division.id };
    }

    const inDivision = async (table: 'customers' | 'campaigns', divisionId: number) =>
      (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE division_id = $1`, [divisionId])).rows[0].n;

    it('a new customer gets 400 validation and is not created', async () => {
      const externalId = `race-${Date.now()}`;
      const { placed, divisionId } = await deleteDuring((id) => api(app, tenant).post('/users').send({ user: { external_id: externalId, division_id: id } }));
      expect(expectError(placed, 400, 'validation')).toEqual(['user.division_id']);
      expect(await inDivision('customers', divisionId)).toBe(0);
      await api(app, tenant).get(`/users/external/${externalId}`).expect(404);
    });

    it('a customer moved into it gets 400 validation and stays where it was', async () => {
      const customer = await createCustomer(app, tenant);
      const { placed, divisionId } = await deleteDuring((id) => api(app, tenant).put(`/users/${customer.id}`).send({ user: { division_id: id } }));
      expect(expectError(placed, 400, 'validation')).toEqual(['user.division_id']);
      expect(await inDivision('customers', divisionId)).toBe(0);
      expect((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.division_id).toBe(tenant.rootDivisionId);
    });

    it('a new campaign gets 400 validation and is not created', async () => {
      const now = Date.now();
      const campaign = { name: `Race ${now}`, status: 'live', starts_at: new Date(now).toISOString(), ends_at: new Date(now + 86_400_000).toISOString() };
      const { placed, divisionId } = await deleteDuring((id) => api(app, tenant).post('/management/campaigns').send({ campaign: { ...campaign, division_id: id } }));
      expect(expectError(placed, 400, 'validation')).toEqual(['campaign.division_id']);
      expect(await inDivision('campaigns', divisionId)).toBe(0);
    });
  });
});
