import { jest } from '@jest/globals';
import { Module, type INestApplication, type INestApplicationContext } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, Min } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger } from '../src/common/logging/logger.js';
import { CriteriaOperator, CriteriaOperatorHandler, EventEnricher, EventEnricherHandler, RewardKind, RewardKindHandler, type EnrichableEvent, type RewardContext } from '../src/extension-api/index.js';
import { ExtensionFailures } from '../src/modules/registry/index.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectErrorAmongOthers as expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

class KindValue {
  @ApiProperty({ example: 'ok' })
  @IsString()
  value!: string;
}

/** An operator that compares as eq, and throws when the event's value is `boom`: a team's bug. */
@CriteriaOperator({ name: 'fragile_eq', description: 'Equal, unless the value is boom', value: KindValue })
class FragileEq extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    if (actual === 'boom') throw new TypeError(`cannot compare ${String(actual)}`);
    return actual === expected;
  }
}

class FlakyArgs {
  @ApiProperty({ type: 'integer', example: 5 })
  @IsInt()
  @Min(1)
  points!: number;

  @ApiProperty({ example: false })
  @IsBoolean()
  fail!: boolean;
}

/** A reward that credits its points and then, with `fail`, throws. */
@RewardKind({ name: 'flaky_points', description: 'Points, then maybe a throw', args: FlakyArgs })
class FlakyPoints extends RewardKindHandler<FlakyArgs> {
  apply(ctx: RewardContext, args: FlakyArgs): void {
    ctx.credit(args.points);
    if (args.fail) throw new Error('the flaky reward fell over');
  }
  override points(args: FlakyArgs): number {
    return args.points;
  }
}

/** An enricher that throws on an event with `fail`: not bulkheaded (what it sets is stored for good), but counted. */
@EventEnricher({ name: 'fragile_enricher', description: 'Throws on fail' })
class FragileEnricher extends EventEnricherHandler {
  enrich(events: EnrichableEvent[]): void {
    if (events.some((e) => e.attributes.fail)) throw new Error('the directory is down');
  }
}

@Module({ providers: [FragileEq, FlakyPoints, FragileEnricher] })
class FragileModule {}

type Json = Record<string, unknown>;

/** Issue #45, decision 0025: an extension that throws fails only the campaign that called it, for that event. */
describe('extension bulkheads', () => {
  const prefix = ownQueuePrefix('bulkheads');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let tenant: TestTenant;
  let fragile: number;
  let healthy: number;
  let flaky: number;

  const behavior = (name: string, event: string, outcome: Json, criteria: Json[] = []) => ({
    name,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: event, internal_event_name: event, event_count: 1, criteria } }] }],
    outcome_config: [outcome],
  });
  const campaignWith = async (behaviors: Json[]) => {
    const id = (await createCampaign(app, tenant)).id;
    await api(app, tenant).post(`/management/campaigns/${id}/behaviors/_batch`).send({ behaviors }).expect(201);
    return id;
  };
  const ledger = (customerId: string): Promise<Array<{ campaign_id: number; amount: number }>> =>
    db.query(`SELECT (source->>'campaign_id')::int AS campaign_id, amount::int FROM points_ledger WHERE customer_id = $1 AND amount > 0 ORDER BY id`, [customerId]);
  const storedRows = (customerId: string): Promise<Array<{ status: string; reason: string | null; result: Json | null; attempts?: number }>> =>
    db.query(`SELECT status, reason, result FROM events WHERE customer_id = $1 ORDER BY id`, [customerId]);

  beforeAll(async () => {
    const databaseUrl = await useOwnDatabase('bulkheads');
    app = await createTestApp({ queuePrefix: prefix, databaseUrl }, [FragileModule]);
    worker = await startTestWorker({ queuePrefix: prefix, databaseUrl, workerQueues: ['events'] }, undefined, [FragileModule]);
    db = app.get(DataSource);
    tenant = await createTenant(app);
    // Three campaigns listen to `visit`: one whose goal uses the fragile operator, one plain, one whose reward may throw.
    fragile = await campaignWith([behavior('Fragile visits', 'visit', { points: 3 }, [{ field: 'kind', op: 'fragile_eq', value: 'ok' }])]);
    healthy = await campaignWith([behavior('Any visit', 'visit', { points: 10 })]);
    flaky = await campaignWith([behavior('Flaky perks', 'perk', { flaky_points: { points: 5, fail: true } })]);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('V1: the campaign whose operator threw is skipped and named; the other campaign is evaluated and committed', async () => {
    const customer = await createCustomer(app, tenant);
    const warn = jest.spyOn(app.get<Logger>(LOGGER), 'warn');
    const res = await api(app, tenant).post(`/users/${customer.id}/events?explain=true`).send({ events: { visit: { kind: 'boom' } } }).expect(200);
    expect(res.body).toMatchObject({ state: 'qualified', qualified: true, user: { available_points: 10 } });
    expect(res.body.extension_failures).toEqual([{ campaign_id: fragile, event_index: 0, kind: 'criteria_operator', extension: 'fragile_eq', source: 'FragileModule' }]);
    const skipped = res.body.explanation[0].campaigns.find((c: Json) => c.campaign_id === fragile);
    expect(skipped).toMatchObject({ state: 'extension_failed', skipped: true, reason: 'extension_failed', behaviors: [] });
    expect(skipped.detail).toMatch(/^criteria operator "fragile_eq" of FragileModule threw at goal \d+: TypeError: cannot compare boom; the campaign is skipped for this event$/);
    expect(await ledger(customer.id)).toEqual([{ campaign_id: healthy, amount: 10 }]);
    const [row] = await storedRows(customer.id);
    expect(row).toMatchObject({ status: 'processed', reason: null });
    expect(row.result!.extension_failures).toEqual(res.body.extension_failures);

    // The log line names the extension and has its stack.
    await waitFor(async () => warn.mock.calls.some(([line]) => (line as unknown as Json).extension === 'fragile_eq'), 5_000, 'the log line');
    const [line, message] = warn.mock.calls.find(([l]) => (l as unknown as Json).extension === 'fragile_eq')! as unknown as [Json, string];
    expect(message).toBe('extension failed; its campaign skipped for the event');
    expect(line).toMatchObject({ source: 'FragileModule', kind: 'criteria_operator', call: 'test', organization_id: tenant.organizationId, campaign_id: fragile });
    expect((line.err as Json).stack).toContain('TypeError: cannot compare boom');
    warn.mockRestore();

    // Answers without a failure are as before: no extension_failures member.
    const plain = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: { kind: 'ok' } } }).expect(200);
    expect(plain.body).not.toHaveProperty('extension_failures');
    expect(plain.body.user.available_points).toBe(23);
  });

  it('V1: when the failed campaign was the only one listening, the state and the stored reason are extension_failed', async () => {
    const customer = await createCustomer(app, tenant);
    const res = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { perk: {} } }).expect(200);
    expect(res.body).toMatchObject({ state: 'extension_failed', qualified: false, user: { available_points: 0 } });
    expect(res.body.extension_failures).toEqual([{ campaign_id: flaky, event_index: 0, kind: 'reward_kind', extension: 'flaky_points', source: 'FragileModule' }]);
    // The reward credited 5 before it threw: nothing of it was kept.
    expect(await ledger(customer.id)).toEqual([]);
    expect(await storedRows(customer.id)).toEqual([expect.objectContaining({ status: 'processed', reason: 'extension_failed' })]);
  });

  it('the metric, and the listing of extensions, count the failures of the organization with the last error', async () => {
    // An enricher's failure answers 500 as before (nothing stored), and is counted too.
    const customer = await createCustomer(app, tenant);
    expectError(await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: { fail: true } } }), 500, 'internal_error');
    await app.get(ExtensionFailures).flush();
    const metrics = await request(app.getHttpServer()).get('/metrics').expect(200);
    const count = (kind: string, name: string) => Number(new RegExp(`extension_failures_total\\{extension="${name}",kind="${kind}"\\} (\\d+)`).exec(metrics.text)?.[1] ?? 0);
    expect(count('criteria_operator', 'fragile_eq')).toBeGreaterThanOrEqual(1);
    expect(count('reward_kind', 'flaky_points')).toBeGreaterThanOrEqual(1);

    const listing = (await api(app, tenant).get('/management/extensions').expect(200)).body.extensions;
    const operator = listing.criteria_operators.find((o: Json) => o.name === 'fragile_eq');
    expect(operator.failures).toEqual({ count: expect.any(Number), last_error: expect.stringMatching(/^test at goal \d+: TypeError: cannot compare boom$/), last_failed_at: expect.any(String), last_campaign_id: fragile });
    expect(listing.criteria_operators.find((o: Json) => o.name === 'eq')).not.toHaveProperty('failures');
    expect(listing.event_enrichers.find((e: Json) => e.name === 'fragile_enricher').failures).toMatchObject({ count: 1, last_error: 'enrich at v1 events: Error: the directory is down', last_campaign_id: null });
    expect(count('event_enricher', 'fragile_enricher')).toBe(1);
    // Another organization's listing has none of them.
    const other = await createTenant(app);
    const theirs = (await api(app, other).get('/management/extensions').expect(200)).body.extensions;
    expect(theirs.criteria_operators.find((o: Json) => o.name === 'fragile_eq')).not.toHaveProperty('failures');
  });

  it('V2 and async V1 events are processed (before, their jobs failed five times and the events ended failed), the failed campaign skipped', async () => {
    const customer = await createCustomer(app, tenant);
    await api(app, tenant).post(`/users/${customer.id}/events?async=true`).send({ events: { visit: { kind: 'boom' } } }).expect(200);
    await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events: [{ name: 'perk', user_id: customer.id }] }).expect(200);
    await waitFor(async () => (await storedRows(customer.id)).every((r) => r.status !== 'pending'), 30_000, 'both events processed');
    const rows = await storedRows(customer.id);
    expect(rows.map((r) => [r.status, r.reason])).toEqual([
      ['processed', null],
      ['processed', 'extension_failed'],
    ]);
    expect(rows[0].result!.extension_failures).toEqual([expect.objectContaining({ campaign_id: fragile, extension: 'fragile_eq' })]);
    expect(rows[1].result!.extension_failures).toEqual([expect.objectContaining({ campaign_id: flaky, extension: 'flaky_points' })]);
    expect(await ledger(customer.id)).toEqual([{ campaign_id: healthy, amount: 10 }]);
  });

  it('perform of the campaign whose reward throws answers 422 naming it, and writes nothing', async () => {
    const customer = await createCustomer(app, tenant);
    const res = await request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/users/${customer.id}/campaigns/${flaky}/perform`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ domain: 'complete_campaign' });
    expectError(res, 422, 'failed_to_perform');
    expect(res.body.errors.message).toMatch(/^cannot complete the campaign: reward kind "flaky_points" of FragileModule threw at behavior \d+ outcome 1: Error: the flaky reward fell over; the campaign is skipped for this event$/);
    expect(await ledger(customer.id)).toEqual([]);
    expect(await storedRows(customer.id)).toEqual([]);
  });
});
