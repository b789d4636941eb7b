import type { INestApplication } from '@nestjs/common';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SettableClock, type Clock } from '../src/common/clock.js';
import { LOGGER, type Logger } from '../src/common/logging/logger.js';
import { loadConfig } from '../src/config/config.js';
import { EventLogMaintenance } from '../src/modules/events/event-log/event-log-maintenance.js';
import { EventPartitionsRepository } from '../src/modules/events/event-log/event-partitions.repository.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

const DAY = 86_400_000;

/**
 * Contract §16: EVENT_RETENTION_DAYS. The event log is partitioned by month of occurred_at; the workers' maintenance
 * drops the months past the retention. This spec creates an old month's partition on purpose (events sent with a
 * 2024 date land in the default partition, and adding the month moves them into it), then runs the maintenance.
 */
describe('Event log retention', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let customer: { id: string };

  const maintenance = (retentionDays: number | null, clock: Clock = new SettableClock(Date.now())) =>
    new EventLogMaintenance(db, { ...loadConfig(process.env), eventRetentionDays: retentionDays }, app.get<Logger>(LOGGER), clock);
  const maintain = (retentionDays: number | null, now = Date.now()) => db.transaction((em) => maintenance(retentionDays).maintain(em, now));
  const send = (body: Record<string, unknown>) => api(app, tenant).post(`/users/${customer.id}/events`).send(body);
  const timeline = async () => (await api(app, tenant).get(`/users/${customer.id}/timeline?limit=100`).expect(200)).body.events as Array<{ occurred_at: string }>;
  const partitionExists = async (name: string) => (await db.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [name]))[0].found as boolean;
  const ledgerRows = async () => Number((await db.query(`SELECT count(*) AS n FROM points_ledger WHERE customer_id = $1`, [customer.id]))[0].n);

  beforeAll(async () => {
    // A database of its own (copied from the run's template): this spec adds and drops months of the event log, and
    // the maintenance drops every month past the retention, whoever's events are in it; the run's other specs can
    // run at the same time as this one (jest.config.js: maxWorkers).
    await useOwnDatabase('retention');
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant, { starts_at: '2023-12-01T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' });
    await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', points: 10 });
    customer = await createCustomer(app, tenant);
  });
  afterAll(() => app.close());

  it('stores the log in monthly partitions: the current month and three ahead exist after migrations', async () => {
    const [{ kind }] = await db.query(`SELECT partstrat AS kind FROM pg_partitioned_table WHERE partrelid = 'events'::regclass`);
    expect(kind).toBe('r');
    const months = (await db.transaction((em) => new EventPartitionsRepository().months(em))).map((m) => m.name);
    const now = new Date();
    for (let i = 0; i <= 3; i++) {
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
      expect(months).toContain(`events_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`);
    }
  });

  it('keeps a transaction id exact across months: a key used in one month is a duplicate in the next', async () => {
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2)).toISOString();
    await send({ events: { visit: 1 }, transaction_id: 'across-months' }).expect(200);
    const res = await send({ events: { visit: 1 }, transaction_id: 'across-months', date: nextMonth });
    expectError(res, 409, 'duplicate_transaction');
    const v2 = await request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/events`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ events: [{ user_id: customer.id, name: 'visit', occurred_at: nextMonth, transaction_id: 'across-months' }] });
    expect(v2.status).toBe(200);
    const stored = await db.query(`SELECT count(*)::int AS n FROM events WHERE transaction_id = 'across-months'`);
    expect(stored[0].n).toBe(1);
  });

  it('drops the months past the retention: their events leave the log and the timeline, balances and the ledger stay', async () => {
    await send({ events: { visit: 1 }, date: '2024-01-15T10:00:00Z', transaction_id: 'old-visit' }).expect(200);
    const january = { name: 'events_2024_01', from: new Date('2024-01-01T00:00:00Z'), to: new Date('2024-02-01T00:00:00Z') };
    const moved = await db.transaction((em) => new EventPartitionsRepository().addMonth(em, january));
    expect(moved).toBeGreaterThanOrEqual(1);
    expect((await timeline()).map((e) => e.occurred_at)).toContain('2024-01-15T10:00:00.000Z');
    const before = (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user;
    const ledger = await ledgerRows();

    expect((await maintain(null)).dropped).toEqual([]);
    expect(await partitionExists('events_2024_01')).toBe(true);

    const report = await maintain(365);
    expect(report.dropped).toEqual(['events_2024_01']);
    expect(await partitionExists('events_2024_01')).toBe(false);
    expect((await timeline()).map((e) => e.occurred_at)).not.toContain('2024-01-15T10:00:00.000Z');
    const after = (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user;
    expect({ available: after.available_points, lifetime: after.lifetime_points }).toEqual({ available: before.available_points, lifetime: before.lifetime_points });
    expect(await ledgerRows()).toBe(ledger);
    // The idempotency key of an event past the retention is forgotten with it.
    expect(report.forgotten).toBeGreaterThanOrEqual(1);
    await send({ events: { visit: 1 }, transaction_id: 'old-visit' }).expect(200);
  });

  it('deletes events past the retention that sit in the default partition (no month of theirs exists)', async () => {
    await send({ events: { visit: 1 }, date: '2023-12-20T10:00:00Z' }).expect(200);
    expect((await timeline()).map((e) => e.occurred_at)).toContain('2023-12-20T10:00:00.000Z');
    const report = await maintain(365);
    expect(report.deleted).toBeGreaterThanOrEqual(1);
    expect((await timeline()).map((e) => e.occurred_at)).not.toContain('2023-12-20T10:00:00.000Z');
  });

  it('adds months as time passes, moving events already stored for them out of the default partition', async () => {
    const later = Date.now() + 200 * DAY;
    const ahead = new Date(later);
    const name = `events_${ahead.getUTCFullYear()}_${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(await partitionExists(name)).toBe(false);
    await send({ events: { visit: 1 }, date: ahead.toISOString() }).expect(200);
    const report = await maintain(null, later);
    expect(report.added).toContain(name);
    expect(report.moved).toBeGreaterThanOrEqual(1);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM ${name} WHERE customer_id = $1`, [customer.id]);
    expect(n).toBe(1);
    expect((await timeline()).map((e) => e.occurred_at)).toContain(ahead.toISOString());
  });

  it('is run by one worker at a time: workers sweeping at once add each month once', async () => {
    const later = new SettableClock(Date.now() + 400 * DAY);
    const added = await Promise.all([1, 2, 3].map(() => maintenance(null, later).sweep()));
    expect(added.filter((n) => n > 0)).toHaveLength(1);
    expect(await maintenance(null, later).sweep()).toBe(0);
    const months = (await db.transaction((em) => new EventPartitionsRepository().months(em))).map((m) => m.name);
    expect(new Set(months).size).toBe(months.length);
    const ahead = new Date(later.now());
    expect(months).toContain(`events_${ahead.getUTCFullYear()}_${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`);
  });

  it('runs once from the command line (npm run cli -- events:maintain), printing what it did', async () => {
    await send({ events: { visit: 1 }, date: '2023-11-20T10:00:00Z' }).expect(200);
    const run = spawnSync(process.execPath, ['dist/src/cli.js', 'events:maintain'], { env: { ...process.env, EVENT_RETENTION_DAYS: '365' }, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expect.objectContaining({ status: 'ok', added: [], dropped: [], deleted: expect.any(Number) }));
    expect(JSON.parse(run.stdout).deleted).toBeGreaterThanOrEqual(1);
    expect((await timeline()).map((e) => e.occurred_at)).not.toContain('2023-11-20T10:00:00.000Z');
  });
});
