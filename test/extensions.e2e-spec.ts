import { Module, type INestApplication, type INestApplicationContext } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Min } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CriteriaOperator, CriteriaOperatorHandler, EventEnricher, EventEnricherHandler, RewardKind, RewardKindHandler, type EnrichableEvent, type EnrichContext, type RewardContext } from '../src/extension-api/index.js';
import { createTestApp } from './support/app.js';
import { expectErrorAmongOthers as expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { deleteQueueKeys, killWorker, ownQueuePrefix, spawnWorker, startTestWorker, waitFor, type WorkerProcess } from './support/worker.js';

class PrefixValue {
  @ApiProperty({ example: 'PAR', description: 'The text the value starts with' })
  @IsString()
  value!: string;
}

/** A team's operator: the store code starts with the value. */
@CriteriaOperator({ name: 'starts_with', description: 'The value starts with the given text', value: PrefixValue })
class StartsWith extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected);
  }
}

class TriplePointsArgs {
  @ApiProperty({ example: 5, type: 'integer', minimum: 1 })
  @IsInt()
  @Min(1)
  points!: number;
}

/** A team's reward: three times the points given. */
@RewardKind({ name: 'triple_points', description: 'Credits three times the points given', args: TriplePointsArgs })
class TriplePoints extends RewardKindHandler<TriplePointsArgs> {
  apply(ctx: RewardContext, args: TriplePointsArgs): void {
    ctx.credit(args.points * 3);
  }
  override points(args: TriplePointsArgs): number {
    return args.points * 3;
  }
}

/**
 * A team's enricher: a store code's region, into V1 attributes and every event's context; the perform event gets its
 * channel. `fail` and `slow` attributes make it throw and take a second, for the error paths.
 */
@EventEnricher({ name: 'store_regions', description: 'The region of the store an event names' })
class StoreRegions extends EventEnricherHandler {
  async enrich(events: EnrichableEvent[], context: EnrichContext): Promise<void> {
    for (const event of events) {
      if (event.attributes.fail) throw new Error('the store directory is down');
      if (event.attributes.slow) await new Promise((resolve) => setTimeout(resolve, 1_000));
      const store = event.attributes.store ?? event.context.store;
      if (typeof store === 'string' && store.startsWith('PAR')) {
        if (context.source === 'v1') event.attributes.region = 'paris';
        event.context = { ...event.context, region: 'paris' };
      }
      if (context.source === 'perform') event.attributes.channel = 'store-app';
    }
  }
}

/** The team's module, added beside the application's own: no file of src/ names it. */
@Module({ providers: [StartsWith, TriplePoints, StoreRegions] })
class StoreExtensionsModule {}

type Json = Record<string, unknown>;

describe('extensions loaded into the application (issue #29)', () => {
  const prefix = ownQueuePrefix('extensions-api');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let tenant: TestTenant;
  let campaignId: number;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix, extensionTimeoutMs: 300 }, [StoreExtensionsModule]);
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events', 'simulations'] }, undefined, [StoreExtensionsModule]);
    db = app.get(DataSource);
    tenant = await createTenant(app);
    campaignId = (await createCampaign(app, tenant)).id;
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await deleteQueueKeys(prefix);
  });

  const behavior = (name: string, outcome: Json, criteria: Json[] = [{ field: 'store', op: 'starts_with', value: 'PAR' }]) => ({
    name,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'visit', internal_event_name: 'visit', event_count: 1, criteria } }] }],
    outcome_config: [outcome],
  });
  const batch = (behaviors: unknown[]) => api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors });

  it("writes a behavior with the extension's reward and operator, answers it as written, and evaluates live events with them", async () => {
    const res = await batch([behavior('Paris visits', { triple_points: { points: 5 } })]).expect(201);
    const [written] = res.body.behaviors;
    expect(written.outcome_config).toEqual([{ id: expect.any(Number), triple_points: { points: 5 } }]);
    expect(written.outcomes[0].model_type).toBe('Extension');
    expect(written.goal_groups[0].goals[0].achievement.criteria).toEqual([{ field: 'store', op: 'starts_with', value: 'PAR' }]);

    const customer = await createCustomer(app, tenant);
    const visit = (store: string) => api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: { store } } }).expect(200);
    const points = async () => (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points;
    await visit('LYON-2');
    expect(await points()).toBe(0);
    await visit('PAR-01');
    expect(await points()).toBe(15);

    // A simulation of a draft copy over that history replays it through the same extensions: the same 15 points.
    const draft = await createCampaign(app, tenant, { status: 'draft' });
    await api(app, tenant).post(`/management/campaigns/${draft.id}/behaviors/_batch`).send({ behaviors: [behavior('Paris visits copy', { triple_points: { points: 5 } })] }).expect(201);
    const started = await api(app, tenant).post(`/management/campaigns/${draft.id}/simulations`).send({ simulation: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() } }).expect(202);
    let simulation: Json = {};
    await waitFor(
      async () => {
        simulation = (await api(app, tenant).get(`/management/simulations/${started.body.simulation.id}`).expect(200)).body.simulation;
        return simulation.status !== 'queued' && simulation.status !== 'running';
      },
      30_000,
      'the simulation to finish',
    );
    expect(simulation).toMatchObject({ status: 'completed', events_replayed: 2, results: { points: 15, achievements: 1 } });
  });

  it("refuses arguments the extension's class refuses, naming the member, with 400 validation", async () => {
    const res = await batch([behavior('Bad bonus', { triple_points: { points: 0, colour: 'red' } }, [{ field: 'store', op: 'starts_with', value: 7 }])]);
    expectError(res, 400, 'validation');
    expect(res.body.behaviors[0].errors).toEqual({
      'outcome_config.0.triple_points.points': 'must not be less than 1',
      'outcome_config.0.triple_points.colour': 'is not a known attribute',
      'goal_groups.0.goals.0.achievement.criteria.0.value': 'must be a string',
    });
  });

  describe('event enrichers', () => {
    const storedEvents = (customerId: string): Promise<Array<{ source: string; name: string; attributes: Json | null; context: Json }>> =>
      db.query(`SELECT source, name, attributes, context FROM events WHERE organization_id = $1 AND customer_id = $2 ORDER BY id`, [tenant.organizationId, customerId]);

    it('store what they add with V1 events, before they are evaluated', async () => {
      const customer = await createCustomer(app, tenant);
      await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { checkin: { store: 'PAR-7' } } }).expect(200);
      expect(await storedEvents(customer.id)).toEqual([{ source: 'v1', name: 'checkin', attributes: { store: 'PAR-7', region: 'paris' }, context: { region: 'paris' } }]);
    });

    it('give V2 events their context before they are stored, and the worker evaluates what they added', async () => {
      await batch([behavior('Paris check-ins', { points: 2 }, [{ field: 'context.region', op: 'eq', value: 'paris' }])].map((b) => ({ ...b, goal_groups: [{ goals: [{ achievement: { name: 'checkin', event_count: 1, criteria: b.goal_groups[0].goals[0].achievement.criteria } }] }] }))).expect(201);
      const customer = await createCustomer(app, tenant);
      await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events: [{ name: 'checkin', user_id: customer.id, context: { store: 'PAR-9' } }] }).expect(200);
      const points = async () => (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points as number;
      await waitFor(async () => (await points()) > 0, 30_000, 'the V2 event processed');
      expect(await points()).toBe(2);
      expect(await storedEvents(customer.id)).toEqual([expect.objectContaining({ source: 'v2', context: { store: 'PAR-9', region: 'paris' } })]);
    });

    it("give perform's event what they add", async () => {
      const customer = await createCustomer(app, tenant);
      await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/users/${customer.id}/campaigns/${campaignId}/perform`).auth(tenant.apiKey, tenant.apiSecret).send({ domain: 'complete_campaign' }).expect(200);
      const [performed] = await storedEvents(customer.id);
      expect(performed).toMatchObject({ source: 'perform', attributes: { domain: 'complete_campaign', channel: 'store-app' } });
    });

    it('an enricher that fails answers 500 internal_error naming it, and one too slow 503 service_unavailable; nothing is stored', async () => {
      const customer = await createCustomer(app, tenant);
      const failed = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: { store: 'PAR-1', fail: true } } });
      expectError(failed, 500, 'internal_error');
      expect(failed.body.errors.message).toBe('event enricher "store_regions" (StoreExtensionsModule) failed: the store directory is down');
      const slow = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: { store: 'PAR-1', slow: true } } });
      expectError(slow, 503, 'service_unavailable');
      expect(slow.body.errors.message).toBe('event enricher "store_regions" (StoreExtensionsModule) did not answer within 300 ms');
      expect(await storedEvents(customer.id)).toEqual([]);
    });
  });

  it('serves a document that names them: the reward as a member of an outcome, the operator among the ops', async () => {
    const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const schemas = document.components.schemas;
    expect(schemas.OutcomeInput.properties.triple_points).toEqual({
      description: 'Credits three times the points given (extension: StoreExtensionsModule)',
      allOf: [{ $ref: '#/components/schemas/TriplePointsArgs' }],
    });
    expect(schemas.TriplePointsArgs.properties.points).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemas.Criterion.properties.op.enum).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains', 'starts_with']);
  });

  it('lists the built-ins and the extensions, each with the schema of its arguments', async () => {
    const { extensions } = (await api(app, tenant).get('/management/extensions').expect(200)).body;
    expect(extensions.reward_kinds.map((k: Json) => [k.name, k.source])).toEqual([
      ['deal', 'core'],
      ['ad_unit', 'core'],
      ['points', 'core'],
      ['event', 'core'],
      ['tier', 'core'],
      ['triple_points', 'StoreExtensionsModule'],
    ]);
    expect(extensions.reward_kinds[2]).toEqual({ name: 'points', source: 'core', description: 'Points credited', schema: { type: 'integer', minimum: 1, example: 10 } });
    expect(extensions.reward_kinds[5]).toEqual({
      name: 'triple_points',
      source: 'StoreExtensionsModule',
      description: 'Credits three times the points given',
      schema: { allOf: [{ $ref: '#/components/schemas/TriplePointsArgs' }] },
    });
    const startsWith = extensions.criteria_operators.find((o: Json) => o.name === 'starts_with');
    expect(startsWith).toEqual({ name: 'starts_with', source: 'StoreExtensionsModule', description: 'The value starts with the given text', schema: { type: 'string', example: 'PAR' } });
    expect(extensions.criteria_operators).toHaveLength(11);
    expect(extensions.event_enrichers).toEqual([{ name: 'store_regions', source: 'StoreExtensionsModule', description: 'The region of the store an event names' }]);
  });
});

describe('extensions loaded by the EXTENSIONS setting into a worker process', () => {
  const prefix = ownQueuePrefix('extensions');
  const FIXTURE = 'test/fixtures/store-extension.mjs#StoreExtensionsModule';
  let app: INestApplication;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix }, [StoreExtensionsModule]);
  });
  afterAll(async () => {
    if (worker) await killWorker(worker);
    await app.close();
    await deleteQueueKeys(prefix);
  });

  it("evaluates V2 events with the extension's reward (node dist/src/worker.js, EXTENSIONS naming a module file)", async () => {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await api(app, tenant)
      .post(`/management/campaigns/${campaign.id}/behaviors/_batch`)
      .send({ behaviors: [{ name: 'Visit', data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1 } }] }], outcome_config: [{ triple_points: { points: 4 } }] }] })
      .expect(201);
    const customer = await createCustomer(app, tenant);
    worker = spawnWorker({ QUEUE_PREFIX: prefix, WORKER_QUEUES: 'events', EXTENSIONS: FIXTURE });
    await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events: [{ name: 'visit', user_id: customer.id }] }).expect(200);
    const points = async () => (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points as number;
    await waitFor(async () => (await points()) > 0, 30_000, 'the V2 event processed');
    expect(await points()).toBe(12);
  });

  it('a worker whose EXTENSIONS entry exports no such module exits 1 with one line naming the entry', async () => {
    const child = spawnWorker({ QUEUE_PREFIX: prefix, EXTENSIONS: 'test/fixtures/store-extension.mjs#NoSuchModule' });
    expect(await child.exited).toEqual({ code: 1, signal: null });
    expect(child.stderr.trim()).toBe('worker: cannot start: EXTENSIONS entry "test/fixtures/store-extension.mjs#NoSuchModule": test/fixtures/store-extension.mjs exports no class named NoSuchModule');
  });
});
