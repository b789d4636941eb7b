import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app.js';
import { useOwnDatabase } from '../support/database.js';
import { deleteQueueKeys, killWorker, logLines, ownQueuePrefix, spawnWorker, waitFor, type WorkerProcess } from '../support/worker.js';
import { api, createTenant, type TestTenant } from '../factories/tenant.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createBehaviors } from '../factories/behavior.factory.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 120_000;
jest.setTimeout(4 * SETTLE_MS);

/** Enough stored events that a replay runs for a few seconds: long enough to be killed or cancelled in the middle. */
const CUSTOMERS = 2_000;
const EVENTS = 200_000;
const DAY = 86_400_000;

/**
 * Contract §15's durability: a simulation whose worker is killed mid-replay is run again by another worker and
 * completes with the results an uninterrupted run gives; a running simulation that is cancelled stops and writes no
 * results. Real worker processes (`node dist/src/worker.js`) on a queue prefix of this spec's own.
 */
describe('simulations when the worker dies or the simulation is cancelled', () => {
  const prefix = ownQueuePrefix('simulation-faults');
  const children: WorkerProcess[] = [];
  let app: INestApplication;
  let tenant: TestTenant;
  let campaignId: number;
  let range: { from: string; to: string };

  beforeAll(async () => {
    // A database of its own (copied from the run's template), for the app and the workers this spec starts: the half
    // million events below would otherwise stay in the run's event log for every spec after this one.
    await useOwnDatabase('simulation-faults');
    app = await createTestApp({ queuePrefix: prefix });
    const db = app.get(DataSource);
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant, { status: 'draft' });
    campaignId = campaign.id;
    await createBehaviors(app, tenant, campaign.id, [
      { name: 'Three purchases', event: 'purchase', event_count: 3, points: 10 },
      { name: 'Two stores', event: 'visit', type: 'unique', unique_attribute: 'store_id', event_count: 2, points: 5 },
    ]);
    const now = Date.now();
    range = { from: new Date(now - 6 * DAY).toISOString(), to: new Date(now + DAY).toISOString() };
    // Stored history, written with SQL (the API would take minutes): customers, then their events over five days.
    await db.query(
      `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
       SELECT $1, 'sim-' || g, 'UTC', $2 FROM generate_series(1, $3) g`,
      [tenant.organizationId, tenant.rootDivisionId, CUSTOMERS],
    );
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, attributes, occurred_at, status)
       SELECT $1, k.id, c.ids[1 + g % $3], 'v2', CASE WHEN g % 3 = 0 THEN 'purchase' ELSE 'visit' END,
              jsonb_build_object('store_id', 's' || (g % 7)), now() - make_interval(secs => (g % 432000)), 'processed'
         FROM generate_series(1, $2) g,
              (SELECT id FROM api_keys WHERE organization_id = $1 LIMIT 1) k,
              (SELECT array_agg(id ORDER BY id) AS ids FROM customers WHERE organization_id = $1) c`,
      [tenant.organizationId, EVENTS, CUSTOMERS],
    );
  }, 4 * SETTLE_MS);

  afterAll(async () => {
    for (const child of children) await killWorker(child);
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  function startWorker(env: Record<string, string> = {}): WorkerProcess {
    const child = spawnWorker({ QUEUE_PREFIX: prefix, ...env });
    children.push(child);
    return child;
  }

  const read = async (id: number): Promise<Json> => (await api(app, tenant).get(`/management/simulations/${id}`).expect(200)).body.simulation;

  async function create(customerIds?: string[]): Promise<number> {
    const simulation = customerIds ? { ...range, customer_ids: customerIds } : range;
    return (await api(app, tenant).post(`/management/campaigns/${campaignId}/simulations`).send({ simulation }).expect(202)).body.simulation.id;
  }

  async function until(id: number, what: string, condition: (s: Json) => boolean): Promise<Json> {
    let last: Json = {};
    await waitFor(async () => condition((last = await read(id))), SETTLE_MS, what, 50);
    return last;
  }

  it('a simulation whose worker is killed mid-replay is run again by another worker, with the results of an uninterrupted run', async () => {
    const first = startWorker();
    const uninterrupted = await until(await create(), 'the first simulation to complete', (s) => s.status === 'completed');
    expect(uninterrupted.events_replayed).toBe(EVENTS);

    const id = await create();
    const midway = await until(id, 'the replay to be under way', (s) => s.status === 'running' && s.events_replayed > 0);
    await killWorker(first);
    expect(midway.events_replayed).toBeLessThan(EVENTS);
    expect((await read(id)).status).toBe('running');

    startWorker();
    // The lease runs out, a sweeper queues the simulation again, and a worker claims it (this spec's second worker, or
    // any other worker of the test run on this database: the row says what happened, not one worker's log).
    const done = await until(id, 'the simulation to complete on the second worker', (s) => s.status !== 'running' && s.status !== 'queued');
    expect(done).toEqual(expect.objectContaining({ status: 'completed', events_replayed: EVENTS, customers: CUSTOMERS }));
    expect(done.results).toEqual(uninterrupted.results);
    expect(done.results.achievements).toBeGreaterThan(0);
  });

  it('a running simulation that is cancelled stops, writes no results, and stays cancelled', async () => {
    const worker = children.find((c) => c.process.exitCode === null && c.process.signalCode === null) ?? startWorker();
    const id = await create();
    await until(id, 'the replay to be under way', (s) => s.status === 'running' && s.events_replayed > 0);
    const cancelled = (await api(app, tenant).delete(`/management/simulations/${id}`).expect(200)).body.simulation;
    expect(cancelled).toEqual(expect.objectContaining({ status: 'cancelled', results: null, completed_at: expect.any(String) }));
    await waitFor(() => logLines(worker).some((l) => l.simulation_id === id && l.outcome === 'cancelled'), SETTLE_MS, 'the worker to stop the replay');
    const after = await read(id);
    expect(after).toEqual(expect.objectContaining({ status: 'cancelled', results: null }));
    expect(after.events_replayed).toBeLessThan(EVENTS);
  });

  it('runs at most SIMULATIONS_PER_ORGANIZATION of an organization at once: the next waits, then runs', async () => {
    for (const child of children) await killWorker(child);
    // Two workers, each free to take a simulation, and a bound of one for the organization.
    const workers = [startWorker({ SIMULATIONS_PER_ORGANIZATION: '1' }), startWorker({ SIMULATIONS_PER_ORGANIZATION: '1' })];
    // A fifth of the customers: each run takes a few seconds, so the second waits well under SWEEP_AFTER_SECONDS (a
    // simulation queued longer is swept, and may be claimed by another spec's worker, whose bound is its own).
    const some = ((await app.get(DataSource).query(`SELECT id FROM customers WHERE organization_id = $1 ORDER BY id LIMIT $2`, [tenant.organizationId, CUSTOMERS / 5])) as Array<{ id: string }>).map((r) => r.id);
    const ids = [await create(some), await create(some)];
    let overlapped = false;
    let seenRunning = 0;
    await waitFor(
      async () => {
        const states = await Promise.all(ids.map(read));
        const running = states.filter((s) => s.status === 'running').length;
        overlapped ||= running > 1;
        seenRunning = Math.max(seenRunning, running);
        return states.every((s) => s.status === 'completed');
      },
      2 * SETTLE_MS,
      'both simulations to complete',
      50,
    );
    expect(seenRunning).toBe(1);
    expect(overlapped).toBe(false);
    const [first, second] = await Promise.all(ids.map(read));
    expect(second.results).toEqual(first.results);
    expect(workers.every((w) => !/error/i.test(w.stderr))).toBe(true);
  });
});
