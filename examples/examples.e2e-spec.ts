import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createExtensionTestApp, type ExtensionTestKit, type TestTenant } from '../src/extension-api/testing.js';
import { expectErrorAmongOthers as expectError } from '../test/support/errors.js';
import { ledgerMismatches } from '../test/support/ledger.js';
import { validateResponses } from '../test/support/response-validation.js';
import { waitFor } from '../test/support/worker.js';
import { api } from '../test/factories/tenant.factory.js';
import { createCampaign } from '../test/factories/campaign.factory.js';
import { createCustomer } from '../test/factories/customer.factory.js';
import { createTriggeredCreative } from '../test/factories/creative.factory.js';
import { CouponPoolModule, migrations as couponMigrations } from './coupon-pool/coupon-pool.module.js';
import { ReferralModule, migrations as referralMigrations } from './referral/referral.module.js';

type Json = Record<string, unknown>;
const behavior = (name: string, event: string, outcomes: Json[]) => ({
  name,
  data: {},
  goal_groups: [{ goals: [{ achievement: { name: event, internal_event_name: event, event_count: 1 } }] }],
  outcome_config: outcomes,
});

/** The two example extensions loaded into the API and a worker, as EXTENSIONS loads them, gone through over HTTP. */
describe('the example extensions, coupon pool and referral (examples/)', () => {
  let kit: ExtensionTestKit;
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let shop: number;
  let creativeId: number;
  const purchaseOutcomes = () => [{ points: 10 }, { coupon: { pool: 'SUMMER', creative_id: creativeId } }, { referral_bonus: { cap: 1 } }];

  beforeAll(async () => {
    // The extension test kit (src/extension-api/testing.ts): the API and a worker with both loaded, on a database of
    // the kit's own with their tables (by their own migrations) and a Redis prefix of its own. Every response is
    // checked against the document served with both loaded, as createTestApp checks the service's.
    kit = await createExtensionTestApp({
      modules: [CouponPoolModule, ReferralModule],
      migrations: [...couponMigrations, ...referralMigrations],
      worker: ['events', 'webhooks', 'simulations'],
      configure: validateResponses,
    });
    expect(kit.migrations).toEqual(['CouponCodes1790000000000', 'ReferralTables1790000000001']);
    app = kit.app;
    db = app.get(DataSource);
    tenant = await kit.createTenant();
    // The coupon's creative: a push the program sends the code in (triggered by another campaign's behavior).
    const other = await createCampaign(app, tenant);
    const unused = await api(app, tenant).post(`/management/campaigns/${other.id}/behaviors/_batch`).send({ behaviors: [behavior('Unused', 'never', [{ points: 1 }])] }).expect(201);
    creativeId = await createTriggeredCreative(app, tenant, other.id, unused.body.behaviors[0].id, { message: 'Your summer coupon', payload: { screen: 'coupons' } });
    shop = (await createCampaign(app, tenant)).id;
    const behaviors = [behavior('First purchase', 'purchase', purchaseOutcomes()), behavior('Welcome', 'referred', [{ points: 5 }]), behavior('Referral bonus', 'referral_bonus', [{ points: 50 }])];
    await api(app, tenant).post(`/management/campaigns/${shop}/behaviors/_batch`).send({ behaviors }).expect(201);
    await db.query(`INSERT INTO coupon_codes (organization_id, pool, code) VALUES ($1, 'SUMMER', 'SUMMER-1'), ($1, 'SUMMER', 'SUMMER-2')`, [tenant.organizationId]);
  });
  // The ledger of every customer sums to its balance after each test (test/support/ledger.ts), on the kit's database.
  afterEach(async () => {
    if (tenant) expect(await ledgerMismatches(db, [tenant.organizationId])).toEqual([]);
  });
  afterAll(() => kit?.close());

  const refer = (customerId: string, args: Json) =>
    request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/users/${customerId}/campaigns/${shop}/perform?sections[]=progress`).auth(tenant.apiKey, tenant.apiSecret).send({ domain: 'refer', args });
  const purchase = (customerId: string) => api(app, tenant).post(`/users/${customerId}/events`).send({ events: { purchase: 1 } }).expect(200);
  const points = async (customerId: string) => (await api(app, tenant).get(`/users/${customerId}`).expect(200)).body.user.available_points as number;
  const coupons = async (customerId: string) =>
    ((await api(app, tenant).get(`/users/${customerId}/notifications`).expect(200)).body.notifications as Json[]).flatMap((n) => {
      const code = (n.data as { payload?: { coupon_code?: string } }).payload?.coupon_code;
      return code ? [code] : [];
    });
  const effects = (customerId: string): Promise<Array<{ kind: string; status: string; last_error: string | null }>> =>
    db.query(`SELECT kind, status, last_error FROM reward_effects WHERE customer_id = $1 ORDER BY id`, [customerId]);

  let referrer: string;
  let first: string;
  let second: string;

  it('refer links a referee to a referrer once, in perform, and evaluates its welcome; what it cannot do is a 422 or a 400', async () => {
    [referrer, first, second] = await Promise.all([0, 1, 2].map(async () => (await createCustomer(app, tenant)).id));
    const linked = await refer(first, { referrer_id: referrer }).expect(200);
    expect(linked.body.campaign.progress).toMatchObject({ points_earned: 5, available_points: 5 });
    await refer(second, { referrer_id: referrer }).expect(200);
    expect(await db.query(`SELECT referee_id, referrer_id FROM referral_links WHERE organization_id = $1 ORDER BY created_at`, [tenant.organizationId])).toEqual([
      { referee_id: first, referrer_id: referrer },
      { referee_id: second, referrer_id: referrer },
    ]);
    const again = await refer(first, { referrer_id: second });
    expectError(again, 422, 'failed_to_perform');
    expect(again.body.errors.message).toBe('the customer was already referred');
    expect((await refer(referrer, { referrer_id: referrer })).body.errors.message).toBe('a customer cannot refer themselves');
    const stranger = '00000000-0000-4000-8000-000000000000';
    expect((await refer(referrer, { referrer_id: stranger })).body.errors.message).toBe(`referrer ${stranger} is not a customer of the organization`);
    expectError(await refer(referrer, { referrer_id: 'me' }), 400, 'validation');
  });

  it('a completion sends the referee a coupon from the pool and the referrer a bonus, capped per referrer, each once', async () => {
    await purchase(first);
    await waitFor(async () => (await effects(first)).every((e) => e.status === 'done') && (await points(referrer)) > 0, 30_000, "the first referee's effects");
    expect(await coupons(first)).toEqual(['SUMMER-1']);
    expect(await points(first)).toBe(15);
    expect(await points(referrer)).toBe(50);
    await purchase(second);
    await waitFor(async () => (await effects(second)).every((e) => e.status === 'done'), 30_000, "the second referee's effects");
    expect(await coupons(second)).toEqual(['SUMMER-2']);
    // Cap 1: the referrer's second referee brings no second bonus.
    expect(await points(referrer)).toBe(50);
    expect((await db.query(`SELECT count(*)::int AS n FROM referral_bonuses WHERE referrer_id = $1`, [referrer]))[0].n).toBe(1);
  });

  it('an empty pool is retried, not lost, and blocks no event', async () => {
    const late = (await createCustomer(app, tenant)).id;
    await purchase(late);
    await waitFor(async () => (await effects(late)).some((e) => e.kind === 'coupon' && e.status === 'retrying'), 30_000, 'the coupon effect retried');
    expect(await effects(late)).toEqual(
      expect.arrayContaining([{ kind: 'coupon', status: 'retrying', last_error: 'reward kind "coupon" (CouponPoolModule) failed: coupon pool "SUMMER" has no code left' }]),
    );
    expect(await points(late)).toBe(10);
    await db.query(`INSERT INTO coupon_codes (organization_id, pool, code) VALUES ($1, 'SUMMER', 'SUMMER-3')`, [tenant.organizationId]);
    await waitFor(async () => (await coupons(late)).length > 0, 30_000, 'the refilled pool to send the code');
    expect(await coupons(late)).toEqual(['SUMMER-3']);
  });

  it('a simulation of a copy of the campaign gives what live gave: points, completions and effects', async () => {
    const draft = await createCampaign(app, tenant, { status: 'draft' });
    await api(app, tenant).post(`/management/campaigns/${draft.id}/behaviors/_batch`).send({ behaviors: [behavior('First purchase copy', 'purchase', purchaseOutcomes())] }).expect(201);
    const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const started = await api(app, tenant).post(`/management/campaigns/${draft.id}/simulations`).send({ simulation: range }).expect(202);
    let simulation: Json = {};
    await waitFor(
      async () => {
        simulation = (await api(app, tenant).get(`/management/simulations/${started.body.simulation.id}`).expect(200)).body.simulation;
        return simulation.status === 'completed' || simulation.status === 'failed';
      },
      30_000,
      'the simulation',
    );
    const live: Array<{ points: number; completions: number }> = await db.query(
      `SELECT coalesce(sum(l.amount), 0)::int AS points, count(DISTINCT l.event_id)::int AS completions
         FROM points_ledger l JOIN behaviors b ON b.id = (l.source->>'behavior_id')::int
        WHERE l.organization_id = $1 AND b.name = 'First purchase'`,
      [tenant.organizationId],
    );
    const liveEffects = await db.query(`SELECT kind, count(*)::int AS n FROM reward_effects WHERE organization_id = $1 GROUP BY kind ORDER BY kind`, [tenant.organizationId]);
    expect(simulation).toMatchObject({ status: 'completed', results: { points: live[0].points, achievements: live[0].completions } });
    expect((simulation.results as Json).effects).toEqual(Object.fromEntries(liveEffects.map((e: { kind: string; n: number }) => [e.kind, e.n])));
    expect((simulation.results as Json).effects).toEqual({ coupon: 3, referral_bonus: 3 });
  });

  it('lists both in the extensions, and serves a document that names them and passes the OpenAPI lint', async () => {
    const { extensions } = (await api(app, tenant).get('/management/extensions').expect(200)).body;
    expect(extensions.domain_actions.map((d: Json) => [d.name, d.source])).toEqual([
      ['complete_campaign', 'core'],
      ['refer', 'ReferralModule'],
    ]);
    expect(extensions.reward_kinds.slice(5).map((d: Json) => [d.name, d.source])).toEqual([
      ['coupon', 'CouponPoolModule'],
      ['referral_bonus', 'ReferralModule'],
    ]);
    const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const file = join(mkdtempSync(join(tmpdir(), 'examples-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const lint = spawnSync('npx', ['redocly', 'lint', file], { encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    expect({ status: lint.status, out: lint.status === 0 ? '' : lint.stdout + lint.stderr }).toEqual({ status: 0, out: '' });
  });
});
