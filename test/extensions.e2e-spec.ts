import { Module, type INestApplication, type INestApplicationContext } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Min } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  behaviorsInvolved,
  CriteriaOperator,
  CriteriaOperatorHandler,
  DomainAction,
  DomainActionHandler,
  EventEnricher,
  EventEnricherHandler,
  performBehaviorsInvolved,
  RewardKind,
  RewardKindHandler,
  type RulesView,
  type DomainActionContext,
  type DomainActionDecision,
  type EnrichableEvent,
  type EnrichContext,
  type RewardContext,
} from '../src/extension-api/index.js';
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

class CheckinArgs {
  @ApiProperty({ example: 'PAR-3', description: 'The store the customer checked in at' })
  @IsString()
  store!: string;
}

const CHECKINS = 'ext_test_store_checkins';

/**
 * A team's domain action: a check-in at a store desk, kept in the team's own table, evaluated as a `desk_visit` event;
 * two per customer at most. Store `FAIL` makes it throw.
 */
@DomainAction({ name: 'store_checkin', description: 'A check-in at a store desk', args: CheckinArgs, tables: [CHECKINS] })
class StoreCheckin extends DomainActionHandler<CheckinArgs> {
  async decide(ctx: DomainActionContext<CheckinArgs>): Promise<DomainActionDecision> {
    if (ctx.args.store === 'FAIL') throw new Error('the check-in desk is closed');
    const [{ n }] = await ctx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${CHECKINS} WHERE customer_id = $1`, [ctx.customer.id]);
    if (n >= 2) return { failure: 'two check-ins at most' };
    const result = ctx.evaluate([{ name: 'desk_visit', attributes: { store: ctx.args.store } }]);
    return { result, attributes: { store: ctx.args.store }, rows: [{ table: CHECKINS, rows: [{ customer_id: ctx.customer.id, store: ctx.args.store }] }] };
  }
  override involved(rules: RulesView, campaignId: number): number[] {
    return [...performBehaviorsInvolved(rules, campaignId), ...behaviorsInvolved(rules, ['desk_visit'])];
  }
}

/** A domain action that writes to a table it did not declare, and one that evaluates events it did not say it would. */
class RogueArgs {
  @ApiPropertyOptional({ description: 'Evaluate an event it did not name in involved()' })
  @IsOptional()
  @IsBoolean()
  undeclared?: boolean;
}

@DomainAction({ name: 'rogue', description: 'Writes where it should not', args: RogueArgs })
class Rogue extends DomainActionHandler<RogueArgs> {
  decide(ctx: DomainActionContext<RogueArgs>): DomainActionDecision {
    if (ctx.args.undeclared) return { result: ctx.evaluate([{ name: 'desk_visit' }]) };
    return { result: ctx.evaluate([]), rows: [{ table: 'customers', rows: [{ id: ctx.customer.id }] }] };
  }
}

/** The team's module, added beside the application's own: no file of src/ names it. */
@Module({ providers: [StartsWith, TriplePoints, StoreRegions, StoreCheckin, Rogue] })
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

  describe('domain actions', () => {
    let desk: number;
    const perform = (customerId: string, body: Json, campaign = desk) =>
      request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/users/${customerId}/campaigns/${campaign}/perform?sections[]=progress`).auth(tenant.apiKey, tenant.apiSecret).send(body);
    const checkins = async (customerId: string) => (await db.query(`SELECT store FROM ${CHECKINS} WHERE customer_id = $1 ORDER BY id`, [customerId])).map((r: Json) => r.store);
    const stored = (customerId: string): Promise<Json[]> => db.query(`SELECT source, name, attributes FROM events WHERE customer_id = $1 ORDER BY id`, [customerId]);

    beforeAll(async () => {
      // The team's own table, as its migration would create it.
      await db.query(`CREATE TABLE IF NOT EXISTS ${CHECKINS} (id bigserial PRIMARY KEY, customer_id uuid NOT NULL, store text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
      desk = (await createCampaign(app, tenant)).id;
      const visits = { name: 'Desk visits', data: {}, goal_groups: [{ goals: [{ achievement: { name: 'desk', internal_event_name: 'desk_visit', event_count: 1, criteria: [{ field: 'store', op: 'starts_with', value: 'PAR' }] } }] }], outcome_config: [{ triple_points: { points: 2 } }] };
      await api(app, tenant).post(`/management/campaigns/${desk}/behaviors/_batch`).send({ behaviors: [visits] }).expect(201);
    });
    afterAll(() => db.query(`DROP TABLE IF EXISTS ${CHECKINS}`));

    it("run in perform's transaction: the action's rows, the event and the engine's result are written together", async () => {
      const customer = await createCustomer(app, tenant);
      const res = await perform(customer.id, { domain: 'store_checkin', args: { store: 'PAR-3' } }).expect(200);
      expect(res.body.campaign).toMatchObject({ campaign_id: desk, qualified: true, progress: { points_earned: 6, available_points: 6, completed: false } });
      expect(await checkins(customer.id)).toEqual(['PAR-3']);
      expect(await stored(customer.id)).toEqual([{ source: 'perform', name: 'store_checkin', attributes: { domain: 'store_checkin', store: 'PAR-3', channel: 'store-app' } }]);
      await perform(customer.id, { domain: 'store_checkin', args: { store: 'LYON-1' } }).expect(200);
      const third = await perform(customer.id, { domain: 'store_checkin', args: { store: 'PAR-4' } });
      expectError(third, 422, 'failed_to_perform');
      expect(third.body.errors.message).toBe('two check-ins at most');
      expect(await checkins(customer.id)).toEqual(['PAR-3', 'LYON-1']);
      expect((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points).toBe(6);
    });

    it("check args against the action's class, and refuse a domain no one registered, listing those there are", async () => {
      const customer = await createCustomer(app, tenant);
      const wrong = await perform(customer.id, { domain: 'store_checkin', args: { store: 7, floor: 2 } });
      expectError(wrong, 400, 'validation');
      expect(wrong.body.errors.message).toBe('args of store_checkin: args.floor is not a known attribute; args.store must be a string');
      expectError(await perform(customer.id, { domain: 'store_checkin' }), 400, 'validation');
      expectError(await perform(customer.id, { domain: 'complete_campaign', args: { store: 'PAR-1' } }), 400, 'validation');
      const unknown = await perform(customer.id, { domain: 'teleport' });
      expectError(unknown, 400, 'not_available');
      expect(unknown.body.errors.message).toBe('domain "teleport" is not available; available: complete_campaign, store_checkin, rogue');
      expect(await stored(customer.id)).toEqual([]);
    });

    it('an action that throws, writes to a table it did not declare, or evaluates events it did not name answers 500 naming it; nothing is written', async () => {
      const customer = await createCustomer(app, tenant);
      const thrown = await perform(customer.id, { domain: 'store_checkin', args: { store: 'FAIL' } });
      expectError(thrown, 500, 'internal_error');
      expect(thrown.body.errors.message).toBe('domain action "store_checkin" (StoreExtensionsModule) failed: the check-in desk is closed');
      const rows = await perform(customer.id, { domain: 'rogue' });
      expectError(rows, 500, 'internal_error');
      expect(rows.body.errors.message).toBe('domain action "rogue" (StoreExtensionsModule) wrote rows to table "customers", which it did not declare (tables: none)');
      // The desk campaign's behaviors listen to desk_visit; on another campaign, rogue's involved() does not name them.
      const undeclared = await perform(customer.id, { domain: 'rogue', args: { undeclared: true } }, campaignId);
      expectError(undeclared, 500, 'internal_error');
      expect(undeclared.body.errors.message).toMatch(/^domain action "rogue" \(StoreExtensionsModule\) failed: evaluates events that behaviors \d+ listen to, which its involved\(\) does not name$/);
      expect(await stored(customer.id)).toEqual([]);
      expect(await checkins(customer.id)).toEqual([]);
    });
  });

  it('serves a document that names them: the reward as a form of an outcome, the operator as a form of a criterion', async () => {
    const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const schemas = document.components.schemas;
    const member = { description: 'Credits three times the points given (extension: StoreExtensionsModule)', allOf: [{ $ref: '#/components/schemas/TriplePointsArgs' }] };
    expect(schemas.OutcomeInput.oneOf.map((form: { $ref: string }) => form.$ref.split('/').pop())).toEqual(
      ['deal', 'ad_unit', 'points', 'event', 'tier', 'triple_points'].map((kind) => `OutcomeInput_${kind}`),
    );
    expect(schemas.OutcomeInput_triple_points).toEqual({ type: 'object', required: ['triple_points'], properties: { triple_points: member } });
    expect(schemas.OutcomeConfigView.oneOf).toContainEqual({ $ref: '#/components/schemas/OutcomeConfigView_triple_points' });
    expect(schemas.OutcomeConfigView_triple_points).toEqual({ type: 'object', required: ['triple_points', 'id'], properties: { triple_points: member, id: schemas.OutcomeConfigView_points.properties.id } });
    expect(schemas.TriplePointsArgs.properties.points).toMatchObject({ type: 'integer', minimum: 1 });
    expect(Object.keys(schemas.Criterion.discriminator.mapping)).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains', 'starts_with']);
    expect(schemas.Criterion.discriminator.mapping.starts_with).toBe('#/components/schemas/Criterion_starts_with');
    expect(schemas.Criterion_starts_with.properties.value).toEqual({ type: 'string', example: 'PAR', description: 'The text the value starts with' });
    // The value class's own component: its value is in the criterion's form, and nothing else refers to it.
    expect(schemas.PrefixValue).toBeUndefined();
    expect(schemas.PerformBody.properties.domain.enum).toEqual(['complete_campaign', 'store_checkin', 'rogue']);
    expect(schemas.PerformBody.properties.args.anyOf).toEqual([
      { type: 'object', maxProperties: 0, description: 'none (complete_campaign, and domain actions without args)' },
      { description: 'args of store_checkin (extension: StoreExtensionsModule)', allOf: [{ $ref: '#/components/schemas/CheckinArgs' }] },
      { description: 'args of rogue (extension: StoreExtensionsModule)', allOf: [{ $ref: '#/components/schemas/RogueArgs' }] },
    ]);
  });

  it('lists the built-ins and the extensions, each with the schema of its arguments', async () => {
    // An organization of its own: the listing is the same for every organization but for the failures each met (the
    // domain action tests of this file make it throw in `tenant`'s).
    const { extensions } = (await api(app, await createTenant(app)).get('/management/extensions').expect(200)).body;
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
    expect(extensions.domain_actions).toEqual([
      { name: 'complete_campaign', source: 'core', description: expect.stringMatching(/^Completes every behavior/), schema: { type: 'object', maxProperties: 0 } },
      { name: 'store_checkin', source: 'StoreExtensionsModule', description: 'A check-in at a store desk', schema: expect.objectContaining({ properties: { store: expect.objectContaining({ type: 'string' }) } }) },
      expect.objectContaining({ name: 'rogue' }),
    ]);
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
