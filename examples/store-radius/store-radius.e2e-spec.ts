import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from '../../test/support/app.js';
import { useOwnDatabase } from '../../test/support/database.js';
import { expectErrorAmongOthers as expectError } from '../../test/support/errors.js';
import { mismatches } from '../../test/support/response-validation.js';
import { deleteQueueKeys, ownQueuePrefix } from '../../test/support/worker.js';
import { api, createTenant, type TestTenant } from '../../test/factories/tenant.factory.js';
import { createCampaign } from '../../test/factories/campaign.factory.js';
import { createCustomer } from '../../test/factories/customer.factory.js';
import { StoreRadiusModule } from './store-radius.module.js';

type Json = Record<string, unknown>;
const DAY = 86_400_000;
/** Five kilometres around the centre of Paris; a place at Opéra (about 2 km away), one in London (about 344 km). */
const AREA = { lat: 48.8566, lon: 2.3522, km: 5 };
const OPERA = '48.8719,2.3316';
const LONDON = '51.5074,-0.1278';
const withinKm = (field: string, value: unknown = AREA) => ({ field, op: 'within_km', value });

/**
 * The store radius example loaded into the API, gone through over HTTP: an operator whose value is an object, written
 * in goal criteria, campaign and creative group targeting, read back (every answer is checked against the served
 * document: test/support/response-validation.ts), and evaluated.
 */
describe('the example extension store radius: an operator whose value is an object (examples/store-radius)', () => {
  const prefix = ownQueuePrefix('store-radius');
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    const url = await useOwnDatabase('store_radius');
    app = await createTestApp({ queuePrefix: prefix, databaseUrl: url }, [StoreRadiusModule]);
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const visits = (criteria: Json[]) => ({
    name: `Visits near the store ${Date.now()}`,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'visit', internal_event_name: 'visit', event_count: 2, criteria } }] }],
    outcome_config: [{ points: 10 }],
  });

  it("serves a document whose Criterion union maps within_km to Criterion_within_km, its value the value class's Area", async () => {
    const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const schemas = document.components.schemas;
    expect(schemas.Criterion.discriminator).toEqual({ propertyName: 'op', mapping: expect.objectContaining({ within_km: '#/components/schemas/Criterion_within_km' }) });
    expect(Object.keys(schemas.Criterion.discriminator.mapping)).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains', 'within_km']);
    expect(schemas.Criterion.oneOf).toContainEqual({ $ref: '#/components/schemas/Criterion_within_km' });
    const form = schemas.Criterion_within_km;
    expect(form).toMatchObject({ type: 'object', required: ['field', 'op', 'value'], properties: { op: { type: 'string', enum: ['within_km'] } } });
    expect(JSON.stringify(form.properties.value)).toContain('"$ref":"#/components/schemas/Area"');
    expect(schemas.Area).toMatchObject({ required: ['lat', 'lon', 'km'], properties: { lat: { minimum: -90, maximum: 90 }, lon: { minimum: -180, maximum: 180 }, km: { maximum: 20_000 } } });
    // The value class itself is referred to by nothing: not in the document (an unused component fails the lint).
    expect(schemas.WithinKmValue).toBeUndefined();

    const { extensions } = (await api(app, tenant).get('/management/extensions').expect(200)).body;
    const listed = extensions.criteria_operators.find((o: Json) => o.name === 'within_km');
    // The listing's schema is the form's value less its description (answered beside it).
    expect(listed).toEqual({ name: 'within_km', source: 'StoreRadiusModule', description: expect.stringContaining('within km kilometres'), schema: { allOf: [{ $ref: '#/components/schemas/Area' }] } });
    expect(form.properties.value).toEqual({ ...listed.schema, description: expect.any(String) });
  });

  it('passes the OpenAPI lint with the extension loaded', async () => {
    const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const file = join(mkdtempSync(join(tmpdir(), 'store-radius-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const lint = spawnSync('npx', ['redocly', 'lint', file], { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    expect({ status: lint.status, out: lint.status === 0 ? '' : lint.stdout + lint.stderr }).toEqual({ status: 0, out: '' });
  });

  it('writes and reads back a goal criterion, a campaign targeting and a creative group targeting with an area value', async () => {
    const campaign = await createCampaign(app, tenant, { targeting: [withinKm('user.attributes.home')] });
    expect(campaign).toMatchObject({ targeting: [withinKm('user.attributes.home')] });
    expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign.targeting).toEqual([withinKm('user.attributes.home')]);

    const written = await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [visits([withinKm('location')])] }).expect(201);
    const [behavior] = written.body.behaviors;
    expect(behavior.goal_groups[0].goals[0].achievement.criteria).toEqual([withinKm('location')]);
    const read = (await api(app, tenant).get(`/management/behaviors/${behavior.id}`).expect(200)).body.behavior;
    expect(read.goal_groups[0].goals[0].achievement.criteria).toEqual([withinKm('location')]);

    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const lineItem = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { name: 'Main', status: 'live', ...window } }).expect(201);
    const group = await api(app, tenant)
      .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
      .send({ creative_group: { name: 'Near the store', status: 'live', ...window, targeting: [withinKm('user.attributes.home', { ...AREA, km: 2.5 })] } })
      .expect(201);
    const [created] = group.body.creative_groups;
    expect(created.targeting).toEqual([withinKm('user.attributes.home', { ...AREA, km: 2.5 })]);
    expect((await api(app, tenant).get(`/management/creative_groups/${created.id}`).expect(200)).body.creative_groups[0].targeting).toEqual([
      withinKm('user.attributes.home', { ...AREA, km: 2.5 }),
    ]);
  });

  it("refuses a value that is not an area, naming the member, with the contract's 400 validation", async () => {
    const campaign = await createCampaign(app, tenant);
    const behavior = await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [visits([withinKm('location', { ...AREA, lat: 91 })])] });
    expectError(behavior, 400, 'validation');
    // The member is named, under its own dotted field.
    expect(behavior.body.behaviors[0].errors).toEqual({ 'goal_groups.0.goals.0.achievement.criteria.0.value.lat': 'must not be greater than 90' });
    const create = (value: unknown) =>
      api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: { name: `Near ${Date.now()}`, status: 'live', starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString(), targeting: [withinKm('user.attributes.home', value)] } });
    const targeting = await create({ ...AREA, km: 0 });
    expectError(targeting, 400, 'validation');
    expect(targeting.body.errors.details).toEqual([{ field: 'campaign.targeting', message: '[0].value.km must be a positive number' }]);
    for (const value of ['48.8566,2.3522', { ...AREA, radius: 3 }, { lat: 48.8566, lon: 2.3522 }, null]) expectError(await create(value), 400, 'validation');
    expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}/behaviors`).expect(200)).body.behaviors).toEqual([]);
  });

  it("the answers are checked against the criterion's and the outcome's forms: a member too many, a value not an area, two outcomes in one are mismatches", async () => {
    const db = app.get(DataSource);
    const campaign = await createCampaign(app, tenant, { targeting: [withinKm('user.attributes.home')] });
    const [behavior] = (await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [visits([])] }).expect(201)).body.behaviors;
    const read = async (stored: { targeting?: unknown; outcomes?: unknown }) => {
      if (stored.targeting) await db.query(`UPDATE campaigns SET targeting = $2 WHERE id = $1`, [campaign.id, JSON.stringify(stored.targeting)]);
      if (stored.outcomes) await db.query(`UPDATE behaviors SET outcome_config = $2 WHERE id = $1`, [behavior.id, JSON.stringify(stored.outcomes)]);
      await api(app, tenant).get(stored.targeting ? `/management/campaigns/${campaign.id}` : `/management/behaviors/${behavior.id}`).expect(200);
      // Where each mismatch is: the union none or two of whose forms the member fits.
      return mismatches.splice(0).map((m) => /(\S+) must match exactly one schema in oneOf$/.exec(m.problem)?.[1] ?? m.problem);
    };
    const [outcome] = (await db.query(`SELECT outcome_config FROM behaviors WHERE id = $1`, [behavior.id]))[0].outcome_config;
    const criterion = ['/response/campaign/targeting/0'];
    expect(await read({ targeting: [withinKm('user.attributes.home'), { field: 'user.tags', op: 'exists' }, { field: 'user.tier', op: 'in', value: ['Gold'] }] })).toEqual([]);
    expect(await read({ targeting: [{ ...withinKm('user.attributes.home'), extra: 1 }] })).toEqual(criterion);
    expect(await read({ targeting: [withinKm('user.attributes.home', { ...AREA, radius: 1 })] })).toEqual(criterion);
    expect(await read({ targeting: [withinKm('user.attributes.home', 'near')] })).toEqual(criterion);
    expect(await read({ targeting: [{ field: 'user.tier', op: 'eq', value: AREA }] })).toEqual(criterion);
    expect(await read({ targeting: [{ field: 'user.tier', op: 'in', value: 'Gold' }] })).toEqual(criterion);
    const outcomes = ['/response/behavior/outcome_config/0'];
    expect(await read({ outcomes: [{ ...outcome, points: 5 }] })).toEqual([]);
    expect(await read({ outcomes: [{ ...outcome, deal: { id: 1 } }] })).toEqual(outcomes);
    expect(await read({ outcomes: [{ id: outcome.id, created_at: outcome.created_at, updated_at: outcome.updated_at }] })).toEqual(outcomes);
  });

  it('an event whose place lies within the radius progresses the goal, one outside does not; the targeting reads the home', async () => {
    const campaign = await createCampaign(app, tenant);
    const behavior = visits([withinKm('location')]);
    await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [behavior] }).expect(201);
    const customer = await createCustomer(app, tenant);
    const visit = async (location?: string) => {
      const answer = await api(app, tenant)
        .post(`/users/${customer.id}/campaigns/${campaign.id}/events`)
        .send({ events: { visit: location === undefined ? {} : { location } } })
        .expect(200);
      return answer.body.behaviors[behavior.name].goals.visit.progress.current_count as number;
    };
    expect(await visit(LONDON)).toBe(0);
    expect(await visit()).toBe(0);
    expect(await visit('not a place')).toBe(0);
    expect(await visit(OPERA)).toBe(1);

    // Targeting on the customer's home: a customer living near the store is counted, one in London is not.
    const local = await createCampaign(app, tenant, { targeting: [withinKm('user.attributes.home')] });
    const targeted = { ...visits([]), name: `Any visit ${Date.now()}` };
    await api(app, tenant).post(`/management/campaigns/${local.id}/behaviors/_batch`).send({ behaviors: [targeted] }).expect(201);
    const state = async (home: string) => {
      const { id } = await createCustomer(app, tenant, { attributes: { home } });
      return (await api(app, tenant).post(`/users/${id}/campaigns/${local.id}/events`).send({ events: { visit: 1 } }).expect(200)).body.state as string;
    };
    expect(await state(OPERA)).toBe('qualified');
    expect(await state(LONDON)).toBe('not_targeted_to_campaign');
  });
});
