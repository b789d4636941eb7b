import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('offers', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let counter = 0;
  const nextName = () => `Offer ${++counter}-${Date.now()}`;

  async function createOffer(owner: TestTenant, offer: Record<string, unknown> = {}) {
    const res = await api(app, owner).post('/management/offers').send({ offer: { name: nextName(), ...offer } }).expect(201);
    return res.body.offer as { id: number; name: string; points: number; description: string | null };
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    otherTenant = await createTenant(app);
  });
  afterAll(() => app.close());

  describe('POST /management/offers', () => {
    it('creates an offer with every member and answers it the same way on GET', async () => {
      const res = await api(app, tenant)
        .post('/management/offers')
        .send({ offer: { name: 'Free coffee', points: 20, description: 'One free coffee' } })
        .expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        offer: {
          id: expect.any(Number),
          name: 'Free coffee',
          points: 20,
          description: 'One free coffee',
          created_at: expect.stringMatching(ISO_UTC_MS),
          updated_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      const got = await api(app, tenant).get(`/management/offers/${res.body.offer.id}`).expect(200);
      expect(got.body).toEqual({ status: 'ok', offer: res.body.offer });
    });

    it('defaults points to 0 and description to null', async () => {
      const offer = await createOffer(tenant);
      expect(offer).toEqual(expect.objectContaining({ points: 0, description: null }));
    });

    it('refuses a name already used in the organization (case-insensitive), but not one of another organization', async () => {
      const offer = await createOffer(tenant);
      const res = await api(app, tenant).post('/management/offers').send({ offer: { name: offer.name.toUpperCase() } });
      expect(expectError(res, 400, 'validation')).toEqual(['offer.name']);
      await createOffer(otherTenant, { name: offer.name });
    });

    it('answers missing_data without the wrapper or the name', async () => {
      expectError(await api(app, tenant).post('/management/offers').send({}), 400, 'missing_data');
      expect(expectError(await api(app, tenant).post('/management/offers').send({ offer: { points: 1 } }), 400, 'missing_data')).toEqual(['offer.name']);
    });

    it('answers argument_error for unknown members', async () => {
      const res = await api(app, tenant).post('/management/offers').send({ offer: { name: nextName(), value: 3 } });
      expect(expectError(res, 400, 'argument_error')).toEqual(['offer.value']);
      expectError(await api(app, tenant).post('/management/offers').send({ offer: { name: nextName() }, extra: 1 }), 400, 'argument_error');
    });

    it.each([
      ['negative points', { points: -1 }, 'offer.points'],
      ['decimal points', { points: 1.5 }, 'offer.points'],
      ['points as a string', { points: '5' }, 'offer.points'],
      ['an empty name', { name: '' }, 'offer.name'],
      ['a name over 255 characters', { name: 'x'.repeat(256) }, 'offer.name'],
      ['a description that is not a string', { description: 7 }, 'offer.description'],
    ])('answers validation for %s', async (_label, member, field) => {
      const res = await api(app, tenant).post('/management/offers').send({ offer: { name: nextName(), ...member } });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
    });

    it('records an audit entry', async () => {
      const offer = await createOffer(tenant, { points: 5 });
      const rows = await db.query(`SELECT action, after FROM audit_log WHERE object_type = 'offer' AND object_id = $1`, [String(offer.id)]);
      expect(rows).toEqual([{ action: 'create', after: expect.objectContaining({ id: offer.id, points: 5 }) }]);
    });
  });

  describe('GET /management/offers', () => {
    it('pages through the organization offers, oldest first', async () => {
      const owner = await createTenant(app);
      const offers = [];
      for (let i = 0; i < 3; i += 1) offers.push(await createOffer(owner));
      await createOffer(otherTenant);
      const first = await api(app, owner).get('/management/offers?limit=2').expect(200);
      expect(first.body).toEqual({ status: 'ok', offers: [expect.objectContaining({ id: offers[0].id }), expect.objectContaining({ id: offers[1].id })], page: 1, limit: 2, total: 3 });
      const second = await api(app, owner).get('/management/offers?limit=2&page=2').expect(200);
      expect(second.body).toEqual({ status: 'ok', offers: [expect.objectContaining({ id: offers[2].id })], page: 2, limit: 2, total: 3 });
      const defaults = await api(app, owner).get('/management/offers').expect(200);
      expect(defaults.body).toEqual(expect.objectContaining({ page: 1, limit: 10, total: 3 }));
    });

    it('answers validation for a limit out of range', async () => {
      expectError(await api(app, tenant).get('/management/offers?limit=101'), 400, 'validation');
      expectError(await api(app, tenant).get('/management/offers?page=0'), 400, 'validation');
    });
  });

  describe('PUT /management/offers/:offer_id', () => {
    it('updates only the members sent, and clears the description with null', async () => {
      const offer = await createOffer(tenant, { points: 3, description: 'Before' });
      const res = await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { points: 9 } }).expect(200);
      expect(res.body.offer).toEqual(expect.objectContaining({ name: offer.name, points: 9, description: 'Before' }));
      const cleared = await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { description: null } }).expect(200);
      expect(cleared.body.offer).toEqual(expect.objectContaining({ points: 9, description: null }));
      const rows = await db.query(`SELECT action, before, after FROM audit_log WHERE object_type = 'offer' AND object_id = $1 ORDER BY id`, [String(offer.id)]);
      expect(rows.map((r: { action: string }) => r.action)).toEqual(['create', 'update', 'update']);
      expect(rows[1]).toEqual(expect.objectContaining({ before: expect.objectContaining({ points: 3 }), after: expect.objectContaining({ points: 9 }) }));
    });

    it('refuses a rename to a name in use, and accepts keeping its own name', async () => {
      const a = await createOffer(tenant);
      const b = await createOffer(tenant);
      expect(expectError(await api(app, tenant).put(`/management/offers/${b.id}`).send({ offer: { name: a.name } }), 400, 'validation')).toEqual(['offer.name']);
      await api(app, tenant).put(`/management/offers/${b.id}`).send({ offer: { name: b.name } }).expect(200);
    });

    it('answers missing_data, argument_error and validation', async () => {
      const offer = await createOffer(tenant);
      expectError(await api(app, tenant).put(`/management/offers/${offer.id}`).send({}), 400, 'missing_data');
      expectError(await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { colour: 'red' } }), 400, 'argument_error');
      expectError(await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { points: -3 } }), 400, 'validation');
    });
  });

  describe('DELETE /management/offers/:offer_id', () => {
    it('soft deletes: the name gets the marker, the offer answers 404 afterwards, and the name is free again', async () => {
      const offer = await createOffer(tenant);
      const res = await api(app, tenant).delete(`/management/offers/${offer.id}`).expect(200);
      expect(res.body.offer.name).toMatch(new RegExp(`^${offer.name} \\[DELETED AT \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z\\]$`));
      expect(res.body.offer.deleted_at).toMatch(ISO_UTC_MS);
      expectError(await api(app, tenant).get(`/management/offers/${offer.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { points: 1 } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/offers/${offer.id}`), 404, 'not_found');
      const list = await api(app, tenant).get('/management/offers?limit=100').expect(200);
      expect(list.body.offers.map((o: { id: number }) => o.id)).not.toContain(offer.id);
      await createOffer(tenant, { name: offer.name });
      const rows = await db.query(`SELECT action FROM audit_log WHERE object_type = 'offer' AND object_id = $1 ORDER BY id`, [String(offer.id)]);
      expect(rows.map((r: { action: string }) => r.action)).toEqual(['create', 'delete']);
    });
  });

  describe('across organizations', () => {
    it("answers 404 for another organization's offer on every route", async () => {
      const offer = await createOffer(otherTenant);
      expectError(await api(app, tenant).get(`/management/offers/${offer.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/offers/${offer.id}`).send({ offer: { points: 1 } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/offers/${offer.id}`), 404, 'not_found');
      await api(app, otherTenant).get(`/management/offers/${offer.id}`).expect(200);
    });

    it('answers 404 for an id that cannot exist', async () => {
      expectError(await api(app, tenant).get('/management/offers/abc'), 404, 'not_found');
      expectError(await api(app, tenant).get('/management/offers/99999999'), 404, 'not_found');
    });
  });
});
