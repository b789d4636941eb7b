import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Redis } from 'ioredis';
import pg from 'pg';
import request from 'supertest';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { RewardKind, RewardKindHandler, type RewardContext } from '../src/extension-api/index.js';
import { createExtensionTestApp, type ExtensionTestKit, type TestTenant } from '../src/extension-api/testing.js';
import { expectError } from './support/errors.js';
import { validateResponses } from './support/response-validation.js';
import { waitFor } from './support/worker.js';

/** The tutorial's extension (docs/extending.md), with a table of its own made by its own migration. */
class DoublePointsArgs {
  @ApiProperty({ example: 10, type: 'integer', minimum: 1, maximum: 1000 }) @IsInt() @Min(1) @Max(1000) points!: number;
}

@RewardKind({ name: 'double_points', description: 'Twice the points given', args: DoublePointsArgs })
class DoublePoints extends RewardKindHandler<DoublePointsArgs> {
  apply(ctx: RewardContext, args: DoublePointsArgs): void {
    ctx.credit(args.points * 2);
  }
  override points(args: DoublePointsArgs): number {
    return args.points * 2;
  }
}

class DoublePointsLog1790000000900 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE double_points_log (id serial PRIMARY KEY, organization_id integer NOT NULL, note text NOT NULL)`);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE double_points_log`);
  }
}
const migrations = [DoublePointsLog1790000000900];

@Module({ providers: [DoublePoints] })
class DoublePointsModule {}

/** Runs `work` with a connection to the database `url` names. */
async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const tables = (url: string) =>
  onDatabase(url, async (c) => (await c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows.map((r) => r.table_name as string));
const databaseExists = (url: string) =>
  onDatabase(process.env.DATABASE_URL!, async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [decodeURIComponent(new URL(url).pathname.slice(1))])).rowCount === 1);

async function redisKeys(prefix: string): Promise<string[]> {
  const redis = new Redis(loadConfig(process.env).redisUrl);
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  } finally {
    redis.disconnect();
  }
}

type Json = Record<string, unknown>;

/** The extension test kit (src/extension-api/testing.ts), as an extension's spec uses it. */
describe('the extension test kit', () => {
  let one: ExtensionTestKit;
  let two: ExtensionTestKit;
  let tenant: TestTenant;

  beforeAll(async () => {
    [one, two] = await Promise.all([
      createExtensionTestApp({ modules: [DoublePointsModule], migrations, worker: ['events'], configure: validateResponses }),
      createExtensionTestApp({ modules: [DoublePointsModule], migrations, configure: validateResponses }),
    ]);
    tenant = await one.createTenant();
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it("runs the service's migrations and the extension's on a database of its own: its table is there, not in another", async () => {
    expect(one.migrations).toEqual(['DoublePointsLog1790000000900']);
    expect(new Set([one.databaseUrl, two.databaseUrl, process.env.DATABASE_URL]).size).toBe(3);
    expect(await tables(one.databaseUrl)).toEqual(expect.arrayContaining(['double_points_log', 'customers', 'behaviors', 'migrations']));
    expect(await tables(process.env.DATABASE_URL!)).not.toContain('double_points_log');
    expect(one.queuePrefix).not.toBe(two.queuePrefix);
    expect(one.queuePrefix.startsWith(`${loadConfig(process.env).queuePrefix}-`)).toBe(true);
  });

  it('serves the API and runs a worker with the extension loaded: a V2 event, evaluated by the worker, credits twice the points', async () => {
    const now = Date.now();
    const campaign = { name: 'Double', status: 'live', starts_at: new Date(now - 86_400_000).toISOString(), ends_at: new Date(now + 86_400_000).toISOString() };
    const { id: campaignId } = (await one.api(tenant).post('/management/campaigns').send({ campaign }).expect(201)).body.campaign;
    const behavior = { name: 'Visit', data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1 } }] }], outcome_config: [{ double_points: { points: 10 } }] };
    await one.api(tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: [behavior] }).expect(201);
    const refused = await one.api(tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: [{ ...behavior, name: 'Zero', outcome_config: [{ double_points: { points: 0 } }] }] });
    expect(refused.status).toBe(400);
    expect(refused.body.behaviors[0].errors).toEqual({ 'outcome_config.0.double_points.points': 'must not be less than 1' });
    const { id: customerId } = (await one.api(tenant).post('/users').send({ user: { external_id: 'kit-1' } }).expect(201)).body.user;
    await request(one.app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events: [{ name: 'visit', user_id: customerId }] }).expect(200);
    const points = async () => (await one.api(tenant).get(`/users/${customerId}`).expect(200)).body.user.available_points as number;
    await waitFor(async () => (await points()) > 0, 30_000, 'the V2 event evaluated by the worker');
    expect(await points()).toBe(20);
  });

  it("keeps two kits apart: neither sees the other's rows, organizations or credentials", async () => {
    const db = one.app.get(DataSource);
    await db.query(`INSERT INTO double_points_log (organization_id, note) VALUES ($1, 'one')`, [tenant.organizationId]);
    const other = await two.createTenant();
    await two.app.get(DataSource).query(`INSERT INTO double_points_log (organization_id, note) VALUES ($1, 'two')`, [other.organizationId]);
    const notes = async (kit: ExtensionTestKit) => (await kit.app.get(DataSource).query(`SELECT note FROM double_points_log ORDER BY id`)).map((r: Json) => r.note);
    expect(await notes(one)).toEqual(['one']);
    expect(await notes(two)).toEqual(['two']);
    expect((await two.app.get(DataSource).query(`SELECT count(*)::int AS n FROM customers`))[0].n).toBe(0);
    // The first kit's credentials are unknown to the second's API.
    expectError(await two.api(tenant).get('/users/kit-1'), 401, 'unauthorized');
    // Each kit's queues and counters are under its own prefix.
    const keysOfOne = await redisKeys(one.queuePrefix);
    expect(keysOfOne.length).toBeGreaterThan(0);
    expect((await redisKeys(two.queuePrefix)).filter((key) => keysOfOne.includes(key))).toEqual([]);
  });

  it("close() closes the app and the worker, drops the database and deletes the prefix's Redis keys; twice is once", async () => {
    expect((await redisKeys(one.queuePrefix)).length).toBeGreaterThan(0);
    expect(await databaseExists(one.databaseUrl)).toBe(true);
    await Promise.all([one.close(), one.close()]);
    await one.close();
    expect(await databaseExists(one.databaseUrl)).toBe(false);
    expect(await redisKeys(one.queuePrefix)).toEqual([]);
    // The other kit goes on, untouched.
    expect(await databaseExists(two.databaseUrl)).toBe(true);
    const listed = (await two.api(await two.createTenant()).get('/management/extensions').expect(200)).body.extensions;
    expect(listed.reward_kinds.map((kind: Json) => kind.name)).toContain('double_points');
  });

  it("outside the service's test run (no template database) it runs the service's migrations too, and sets an admin token of its own", async () => {
    const template = process.env.TEST_TEMPLATE_DATABASE;
    delete process.env.TEST_TEMPLATE_DATABASE;
    let kit: ExtensionTestKit | undefined;
    try {
      kit = await createExtensionTestApp({ modules: [DoublePointsModule], migrations, config: { adminToken: null }, configure: validateResponses });
    } finally {
      process.env.TEST_TEMPLATE_DATABASE = template;
    }
    try {
      expect(kit.migrations).toEqual(['DoublePointsLog1790000000900']);
      expect(await tables(kit.databaseUrl)).toEqual(expect.arrayContaining(['double_points_log', 'customers', 'behaviors', 'migrations']));
      const own = await kit.createTenant({ time_zone: 'Europe/Paris' });
      expect(own).toEqual({ organizationId: expect.any(Number), rootDivisionId: expect.any(Number), apiKey: expect.any(String), apiSecret: expect.any(String) });
      // Not the environment's token: the kit's own.
      await request(kit.app.getHttpServer()).post('/admin/v1/organizations').set('Authorization', `Bearer ${process.env.ADMIN_TOKEN}`).send({ organization: { name: 'X' }, application: { name: 'Web' } }).expect(401);
    } finally {
      await kit.close();
    }
    expect(await databaseExists(kit.databaseUrl)).toBe(false);
  });
});
