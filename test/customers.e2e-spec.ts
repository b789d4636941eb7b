import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

describe('customers', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let counter = 0;
  const nextExternalId = () => `ext-${++counter}-${Date.now()}`;

  /** A division of the organization, created directly in the database under its root division. */
  async function insertDivision(owner: TestTenant, name: string): Promise<number> {
    const rows: Array<{ id: number }> = await db.query(
      `INSERT INTO divisions (organization_id, parent_id, name, ancestor_ids) VALUES ($1, $2, $3, ARRAY[$2::int]) RETURNING id`,
      [owner.organizationId, owner.rootDivisionId, name],
    );
    await db.query(`UPDATE divisions SET ancestor_ids = ancestor_ids || id WHERE id = $1`, [rows[0].id]);
    return rows[0].id;
  }

  async function getByExternalId(externalId: string): Promise<Response> {
    return api(app, tenant).get(`/external/users/${encodeURIComponent(externalId)}`);
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app, { time_zone: 'Europe/Paris' });
    otherTenant = await createTenant(app, { time_zone: 'UTC' });
  });
  afterAll(() => app.close());

  describe('POST /users', () => {
    it('creates a customer with the organization time zone and root division by default', async () => {
      const res = await api(app, tenant).post('/users').send({ user: { external_id: 'c-1' } }).expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        user: expect.objectContaining({
          id: expect.stringMatching(UUID),
          external_id: 'c-1',
          time_zone: 'Europe/Paris',
          division_id: tenant.rootDivisionId,
          tags: [],
          attributes: {},
          available_points: 0,
          lifetime_points: 0,
          tier: null,
          created_at: expect.stringMatching(ISO_UTC_MS),
        }),
      });
    });

    it('creates a customer with every member and answers it the same way on GET', async () => {
      const divisionId = await insertDivision(tenant, 'Stores');
      const user = {
        external_id: nextExternalId(),
        time_zone: 'America/New_York',
        division_id: divisionId,
        tags: ['vip', 'newsletter'],
        attributes: { plan: 'gold', age: 34, score: 1.5, opted_in: true, since: '2026-01-05T10:00:00Z' },
      };
      const created = await api(app, tenant).post('/users').send({ user }).expect(201);
      expect(created.body.user).toEqual(
        expect.objectContaining({ ...user, id: expect.stringMatching(UUID), available_points: 0, lifetime_points: 0, tier: null }),
      );
      const read = await api(app, tenant).get(`/users/${created.body.user.id}`).expect(200);
      expect(read.body).toEqual({ status: 'ok', user: created.body.user });
    });

    it('rejects an external_id already used in the organization with 400 validation', async () => {
      const existing = await createCustomer(app, tenant);
      const res = await api(app, tenant).post('/users').send({ user: { external_id: existing.external_id } });
      expect(expectError(res, 400, 'validation')).toEqual(['user.external_id']);
    });

    it('allows the same external_id in another organization', async () => {
      const existing = await createCustomer(app, tenant);
      const res = await api(app, otherTenant).post('/users').send({ user: { external_id: existing.external_id } }).expect(201);
      expect(res.body.user.id).not.toBe(existing.id);
    });

    it('answers 400 missing_data naming `user` when the wrapper is absent', async () => {
      const res = await api(app, tenant).post('/users').send({});
      expect(expectError(res, 400, 'missing_data')).toEqual(['user']);
    });

    it('answers 400 missing_data naming user.external_id when it is absent', async () => {
      const res = await api(app, tenant).post('/users').send({ user: { time_zone: 'UTC' } });
      expect(expectError(res, 400, 'missing_data')).toEqual(['user.external_id']);
    });

    it('answers 400 argument_error for an unknown top-level member and creates nothing', async () => {
      const externalId = nextExternalId();
      const res = await api(app, tenant).post('/users').send({ user: { external_id: externalId }, available_points: 500 });
      expect(expectError(res, 400, 'argument_error')).toEqual(['available_points']);
      expect((await getByExternalId(externalId)).status).toBe(404);
    });

    it('answers 400 argument_error for unknown members inside user and creates nothing', async () => {
      const externalId = nextExternalId();
      const res = await api(app, tenant).post('/users').send({ user: { external_id: externalId, available_points: 500, tier: 'gold' } });
      expect(expectError(res, 400, 'argument_error').sort()).toEqual(['user.available_points', 'user.tier']);
      expect((await getByExternalId(externalId)).status).toBe(404);
    });

    it.each([
      ['an unknown time zone', { time_zone: 'Mars/Olympus_Mons' }, 'user.time_zone'],
      ['a time zone that is not a string', { time_zone: 5 }, 'user.time_zone'],
      ['a division that does not exist', { division_id: 2_000_000_000 }, 'user.division_id'],
      ['a division id that is not an integer', { division_id: 'root' }, 'user.division_id'],
      ['a division id beyond the integer range', { division_id: 99_999_999_999 }, 'user.division_id'],
      ['attributes with a nested object', { attributes: { address: { city: 'Paris' } } }, 'user.attributes'],
      ['attributes with an array value', { attributes: { kids: ['a', 'b'] } }, 'user.attributes'],
      ['attributes with a null value', { attributes: { plan: null } }, 'user.attributes'],
      ['attributes that are an array', { attributes: ['gold'] }, 'user.attributes'],
      ['attributes that are null', { attributes: null }, 'user.attributes'],
      ['tags that are not strings', { tags: ['vip', 7] }, 'user.tags'],
      ['tags that are not an array', { tags: 'vip' }, 'user.tags'],
      ['an external_id that is not a string', { external_id: 42 }, 'user.external_id'],
    ])('answers 400 validation for %s and creates nothing', async (_label, member, field) => {
      const externalId = nextExternalId();
      const res = await api(app, tenant).post('/users').send({ user: { external_id: externalId, ...member } });
      expect(expectError(res, 400, 'validation')).toContain(field);
      expect((await getByExternalId(externalId)).status).toBe(404);
    });

    it('answers 400 validation for a division of another organization', async () => {
      const foreignDivision = await insertDivision(otherTenant, 'Foreign');
      const externalId = nextExternalId();
      const res = await api(app, tenant).post('/users').send({ user: { external_id: externalId, division_id: foreignDivision } });
      expect(expectError(res, 400, 'validation')).toEqual(['user.division_id']);
      const rootRes = await api(app, tenant).post('/users').send({ user: { external_id: nextExternalId(), division_id: otherTenant.rootDivisionId } });
      expect(expectError(rootRes, 400, 'validation')).toEqual(['user.division_id']);
      expect((await getByExternalId(externalId)).status).toBe(404);
    });

    it('accepts a division created in the database for the organization', async () => {
      const divisionId = await insertDivision(tenant, 'North');
      const created = await createCustomer(app, tenant, { division_id: divisionId });
      expect(created.division_id).toBe(divisionId);
    });
  });

  describe('GET and PUT by user_id and by external_id', () => {
    let divisionId: number;

    beforeAll(async () => {
      divisionId = await insertDivision(tenant, 'West');
    });

    async function createFull(): Promise<Record<string, unknown> & { id: string; external_id: string }> {
      const res = await api(app, tenant)
        .post('/users')
        .send({
          user: { external_id: nextExternalId(), time_zone: 'Asia/Tokyo', division_id: divisionId, tags: ['a', 'b'], attributes: { plan: 'silver', visits: 3 } },
        })
        .expect(201);
      return res.body.user;
    }

    it('reads the same customer by user_id and by external_id', async () => {
      const user = await createFull();
      const byId = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      const byExternal = await getByExternalId(user.external_id);
      expect(byExternal.status).toBe(200);
      expect(byId.body).toEqual({ status: 'ok', user });
      expect(byExternal.body).toEqual({ status: 'ok', user });
    });

    it('PUT by user_id changes only the members sent', async () => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { tags: ['gold'] } }).expect(200);
      const expected = { ...user, tags: ['gold'], updated_at: expect.stringMatching(ISO_UTC_MS) };
      expect(res.body).toEqual({ status: 'ok', user: expected });
      const again = await api(app, tenant).put(`/users/${user.id}`).send({ user: { attributes: { plan: 'gold' }, time_zone: 'Europe/Berlin' } }).expect(200);
      expect(again.body.user).toEqual({ ...expected, attributes: { plan: 'gold' }, time_zone: 'Europe/Berlin' });
      const read = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      expect(read.body.user).toEqual(again.body.user);
    });

    it('PUT with an empty user changes nothing', async () => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: {} }).expect(200);
      expect(res.body.user).toEqual({ ...user, updated_at: expect.any(String) });
    });

    it('PUT by user_id can move the customer to the root division', async () => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { division_id: tenant.rootDivisionId } }).expect(200);
      expect(res.body.user).toEqual({ ...user, division_id: tenant.rootDivisionId, updated_at: expect.any(String) });
    });

    it('PUT by external_id changes only the members sent and can change the external_id', async () => {
      const user = await createFull();
      const newExternalId = nextExternalId();
      const res = await api(app, tenant)
        .put(`/external/users/${user.external_id}`)
        .send({ user: { external_id: newExternalId, time_zone: 'UTC' } })
        .expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        user: { ...user, external_id: newExternalId, time_zone: 'UTC', updated_at: expect.stringMatching(ISO_UTC_MS) },
      });
      expect((await getByExternalId(user.external_id)).status).toBe(404);
      const read = await getByExternalId(newExternalId);
      expect(read.status).toBe(200);
      expect(read.body.user).toEqual(res.body.user);
    });

    it('PUT by user_id can change the external_id', async () => {
      const user = await createFull();
      const newExternalId = nextExternalId();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { external_id: newExternalId } }).expect(200);
      expect(res.body.user).toEqual({ ...user, external_id: newExternalId, updated_at: expect.any(String) });
    });

    it('rejects changing the external_id to one already used with 400 validation and keeps the customer', async () => {
      const user = await createFull();
      const other = await createCustomer(app, tenant);
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { external_id: other.external_id, tags: ['changed'] } });
      expect(expectError(res, 400, 'validation')).toEqual(['user.external_id']);
      const byExternal = await api(app, tenant).put(`/external/users/${user.external_id}`).send({ user: { external_id: other.external_id } });
      expect(expectError(byExternal, 400, 'validation')).toEqual(['user.external_id']);
      const read = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      expect(read.body.user).toEqual(user);
    });

    it('answers 400 missing_data naming `user` when the PUT body has no wrapper', async () => {
      const user = await createFull();
      expect(expectError(await api(app, tenant).put(`/users/${user.id}`).send({}), 400, 'missing_data')).toEqual(['user']);
      expect(expectError(await api(app, tenant).put(`/external/users/${user.external_id}`).send({}), 400, 'missing_data')).toEqual(['user']);
    });

    it.each([
      ['top level', { user: { tags: ['x'] }, available_points: 1000 }, ['available_points']],
      ['inside user', { user: { tags: ['x'], available_points: 1000, tier: 'gold' } }, ['user.available_points', 'user.tier']],
      ['inside user (lifetime_points, id)', { user: { lifetime_points: 9, id: UNKNOWN_UUID } }, ['user.id', 'user.lifetime_points']],
    ])('answers 400 argument_error for unknown members %s and changes nothing', async (_label, body, fields) => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send(body);
      expect(expectError(res, 400, 'argument_error').sort()).toEqual(fields);
      const byExternal = await api(app, tenant).put(`/external/users/${user.external_id}`).send(body);
      expect(expectError(byExternal, 400, 'argument_error').sort()).toEqual(fields);
      const read = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      expect(read.body.user).toEqual(user);
    });

    it.each([
      ['an unknown time zone', { time_zone: 'Europe/Atlantis' }, 'user.time_zone'],
      ['a division that does not exist', { division_id: 2_000_000_000 }, 'user.division_id'],
      ['a division id beyond the integer range', { division_id: 99_999_999_999 }, 'user.division_id'],
      ['attributes with a nested object', { attributes: { address: { city: 'Paris' } } }, 'user.attributes'],
      ['attributes with an array value', { attributes: { kids: [1] } }, 'user.attributes'],
      ['attributes with a null value', { attributes: { plan: null } }, 'user.attributes'],
      ['attributes that are null', { attributes: null }, 'user.attributes'],
      ['tags that are not strings', { tags: [{ name: 'vip' }] }, 'user.tags'],
      ['an empty external_id', { external_id: '' }, 'user.external_id'],
      ['a null external_id', { external_id: null }, 'user.external_id'],
      ['a null time_zone', { time_zone: null }, 'user.time_zone'],
      ['a null division_id', { division_id: null }, 'user.division_id'],
      ['null tags', { tags: null }, 'user.tags'],
    ])('answers 400 validation for %s and changes nothing', async (_label, member, field) => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: member });
      expect(expectError(res, 400, 'validation')).toContain(field);
      const read = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      expect(read.body.user).toEqual(user);
    });

    it('answers 400 validation for a division of another organization on PUT', async () => {
      const user = await createFull();
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { division_id: otherTenant.rootDivisionId } });
      expect(expectError(res, 400, 'validation')).toEqual(['user.division_id']);
      const read = await api(app, tenant).get(`/users/${user.id}`).expect(200);
      expect(read.body.user.division_id).toBe(divisionId);
    });

    it('accepts a division created in the database for the organization on PUT', async () => {
      const user = await createFull();
      const newDivision = await insertDivision(tenant, 'East');
      const res = await api(app, tenant).put(`/users/${user.id}`).send({ user: { division_id: newDivision } }).expect(200);
      expect(res.body.user.division_id).toBe(newDivision);
    });

    it.each([
      ['GET an unknown user_id', 'get', `/users/${UNKNOWN_UUID}`],
      ['GET a malformed user_id', 'get', '/users/not-a-uuid'],
      ['GET an unknown external_id', 'get', '/external/users/nobody-here'],
      ['PUT an unknown user_id', 'put', `/users/${UNKNOWN_UUID}`],
      ['PUT a malformed user_id', 'put', '/users/12345'],
      ['PUT an unknown external_id', 'put', '/external/users/nobody-here'],
    ] as const)('answers 404 not_found to %s', async (_label, method, path) => {
      const req = api(app, tenant)[method](path);
      const res = method === 'put' ? await req.send({ user: { tags: ['x'] } }) : await req;
      expectError(res, 404, 'not_found');
    });

    it("answers 404 not_found for another organization's customer, by user_id and by external_id", async () => {
      const foreign = await createCustomer(app, otherTenant);
      expectError(await api(app, tenant).get(`/users/${foreign.id}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/external/users/${foreign.external_id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/users/${foreign.id}`).send({ user: { tags: ['stolen'] } }), 404, 'not_found');
      expectError(await api(app, tenant).get(`/users/${foreign.id}/timeline`), 404, 'not_found');
      const read = await api(app, otherTenant).get(`/users/${foreign.id}`).expect(200);
      expect(read.body.user.tags).toEqual([]);
    });
  });

  describe('GET /users/:user_id/timeline', () => {
    let customer: { id: string; external_id: string };
    let apiKeyId: number;

    /** Events as the event pipeline would have recorded them, written directly to the events table. */
    async function insertEvent(customerId: string, name: string, occurredAt: string, pointsEarned: number, divisionId: number | null = null) {
      await db.query(
        `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, occurred_at, status, points_earned, division_id)
         VALUES ($1, $2, $3, 'v1', $4, $5, 'processed', $6, $7)`,
        [tenant.organizationId, apiKeyId, customerId, name, occurredAt, pointsEarned, divisionId],
      );
    }

    beforeAll(async () => {
      const rows: Array<{ id: number }> = await db.query(`SELECT id FROM api_keys WHERE key = $1`, [tenant.apiKey]);
      apiKeyId = rows[0].id;
      customer = await createCustomer(app, tenant);
    });

    it('answers an empty list with page, limit and total for a customer without events', async () => {
      const fresh = await createCustomer(app, tenant);
      const res = await api(app, tenant).get(`/users/${fresh.id}/timeline`).expect(200);
      expect(res.body).toEqual({ status: 'ok', events: [], page: 1, limit: 10, total: 0 });
    });

    describe('with events', () => {
      beforeAll(async () => {
        await insertEvent(customer.id, 'store_visit', '2026-01-05T10:00:00.123+02:00', 5, tenant.rootDivisionId);
        await insertEvent(customer.id, 'purchase', '2026-01-07T09:30:00Z', 20);
        await insertEvent(customer.id, 'signup', '2025-12-31T23:59:59.999Z', 0);
        const other = await createCustomer(app, tenant);
        await insertEvent(other.id, 'not_mine', '2026-01-06T00:00:00Z', 1);
      });

      it("lists the customer's events newest first with name, occurred_at, division_id, status and points_earned", async () => {
        const res = await api(app, tenant).get(`/users/${customer.id}/timeline`).expect(200);
        expect(res.body).toEqual({ status: 'ok', events: expect.any(Array), page: 1, limit: 10, total: 3 });
        expect(res.body.events).toEqual([
          expect.objectContaining({ name: 'purchase', occurred_at: '2026-01-07T09:30:00.000Z', division_id: null, status: 'processed', points_earned: 20 }),
          expect.objectContaining({
            name: 'store_visit',
            occurred_at: '2026-01-05T08:00:00.123Z',
            division_id: tenant.rootDivisionId,
            status: 'processed',
            points_earned: 5,
          }),
          expect.objectContaining({ name: 'signup', occurred_at: '2025-12-31T23:59:59.999Z', division_id: null, status: 'processed', points_earned: 0 }),
        ]);
      });

      it('pages with limit and page', async () => {
        const first = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=2&page=1`).expect(200);
        expect(first.body).toEqual({ status: 'ok', events: expect.any(Array), page: 1, limit: 2, total: 3 });
        expect(first.body.events.map((e: { name: string }) => e.name)).toEqual(['purchase', 'store_visit']);
        const second = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=2&page=2`).expect(200);
        expect(second.body).toEqual({ status: 'ok', events: [expect.objectContaining({ name: 'signup' })], page: 2, limit: 2, total: 3 });
        const beyond = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=2&page=3`).expect(200);
        expect(beyond.body).toEqual({ status: 'ok', events: [], page: 3, limit: 2, total: 3 });
        const max = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=100`).expect(200);
        expect(max.body).toEqual(expect.objectContaining({ limit: 100, total: 3 }));
        expect(max.body.events).toHaveLength(3);
      });

      it("answers each event's status, the reason it did not progress, its source and transaction_id as recorded", async () => {
        const fresh = await createCustomer(app, tenant);
        const recorded = [
          ['stored', 'events_not_qualified', 'v1', 't-stored', '2026-02-01T10:00:00Z'],
          ['pending', null, 'v2', null, '2026-02-02T10:00:00Z'],
          ['processed', 'campaign_over', 'v1_async', 't-async', '2026-02-03T10:00:00Z'],
          ['processed', null, 'perform', null, '2026-02-04T10:00:00Z'],
        ];
        for (const [status, reason, source, transactionId, occurredAt] of recorded) {
          await db.query(
            `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, occurred_at, status, reason, transaction_id, points_earned)
             VALUES ($1, $2, $3, $4, 'visit', $5, $6, $7, $8, 0)`,
            [tenant.organizationId, apiKeyId, fresh.id, source, occurredAt, status, reason, transactionId],
          );
        }
        const res = await api(app, tenant).get(`/users/${fresh.id}/timeline`).expect(200);
        const seen = res.body.events.map((e: Record<string, unknown>) => [e.status, e.reason, e.source, e.transaction_id, e.occurred_at]);
        expect(seen).toEqual([...recorded].reverse().map(([status, reason, source, t, at]) => [status, reason, source, t, new Date(at!).toISOString()]));
        expect(res.body.events.every((e: { notifications: unknown[] }) => e.notifications.length === 0)).toBe(true);
      });

      it('lists the same events by external_id', async () => {
        const byId = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=2`).expect(200);
        const byExternal = await api(app, tenant).get(`/external/users/${customer.external_id}/timeline?limit=2`).expect(200);
        expect(byExternal.body).toEqual(byId.body);
      });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
    ])('answers 400 validation for %s', async (query, field) => {
      const res = await api(app, tenant).get(`/users/${customer.id}/timeline?${query}`);
      expect(expectError(res, 400, 'validation')).toContain(field);
      const byExternal = await api(app, tenant).get(`/external/users/${customer.external_id}/timeline?${query}`);
      expect(expectError(byExternal, 400, 'validation')).toContain(field);
    });

    it.each([
      ['an unknown user_id', `/users/${UNKNOWN_UUID}/timeline`],
      ['a malformed user_id', '/users/nope/timeline'],
      ['an unknown external_id', '/external/users/nobody-here/timeline'],
    ])('answers 404 not_found for %s', async (_label, path) => {
      expectError(await api(app, tenant).get(path), 404, 'not_found');
    });
  });
});
