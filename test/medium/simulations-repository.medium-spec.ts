import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { Tenant } from '../../src/common/http/request-context.js';
import { MAX_ATTEMPTS, SimulationsRepository } from '../../src/modules/simulations/simulations.repository.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { seedCampaign, seedTenant } from './support/seed.js';

const RESULTS = { points: 0, achievements: 0, customers_achieved: 0, behaviors: {}, by_day: [], states: {}, effects: {}, tiers: {} };

/**
 * The simulations table's claims on the run's database (contract §15): one runner per simulation, at most N running
 * per organization, a lease that another worker may take over once it expires, and every write fenced by the
 * runner's attempt.
 */
describe('Simulation claims', () => {
  let context: MediumContext;
  let db: DataSource;
  let repository: SimulationsRepository;
  let tenant: Tenant;
  let campaignId: number;

  const create = async (of: Tenant = tenant, campaign = campaignId) =>
    (await repository.create({ organizationId: of.organizationId, campaignId: campaign, from: new Date('2026-01-01'), to: new Date('2026-02-01'), customerIds: null, explain: false })).id;
  const status = async (id: number) => (await repository.find(tenant.organizationId, id))!.status;
  /** As if the runner's last lease renewal was a minute ago (its worker died). */
  const expireLease = (id: number) => db.query(`UPDATE simulations SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [id]);

  beforeAll(async () => {
    context = await createMediumContext();
    db = context.db;
    repository = new SimulationsRepository(db);
  });

  // Each test in an organization of its own: its simulations are the only ones that count.
  beforeEach(async () => {
    tenant = await seedTenant(db);
    campaignId = (await seedCampaign(db, tenant, [])).campaignId;
  });

  afterAll(async () => {
    await context?.close();
  });

  it('lets one runner claim a queued simulation; a second claim finds nothing to run', async () => {
    const id = await create();
    const claimed = await repository.claim(id, 2);
    expect(claimed).toEqual(expect.objectContaining({ id, status: 'running', attempt: 1 }));
    expect(await repository.claim(id, 2)).toBeNull();
  });

  it('runs at most N simulations of an organization at once: the next one is busy until one finishes', async () => {
    const other = await seedTenant(db);
    const otherCampaign = (await seedCampaign(db, other, [])).campaignId;
    const [first, second, third] = [await create(), await create(), await create()];
    expect(await repository.claim(first, 2)).toEqual(expect.objectContaining({ id: first }));
    expect(await repository.claim(second, 2)).toEqual(expect.objectContaining({ id: second }));
    expect(await repository.claim(third, 2)).toBe('busy');
    expect(await status(third)).toBe('queued');
    // Another organization's simulations do not count.
    expect(await repository.claim(await create(other, otherCampaign), 2)).toEqual(expect.objectContaining({ status: 'running' }));
    expect(await repository.complete(first, 1, { customers: 0, eventsReplayed: 0 }, RESULTS, null)).toBe(true);
    expect(await repository.claim(third, 2)).toEqual(expect.objectContaining({ id: third, status: 'running' }));
    // A running simulation whose lease expired no longer counts either.
    await expireLease(second);
    expect(await repository.claim(await create(), 2)).toEqual(expect.objectContaining({ status: 'running' }));
  });

  it('lets another runner take over a simulation whose lease expired, and fences the first one out', async () => {
    const id = await create();
    const first = await repository.claim(id, 2);
    expect(first).toEqual(expect.objectContaining({ attempt: 1 }));
    expect(await repository.claim(id, 2)).toBeNull(); // the lease is fresh
    expect(await repository.unattended(3600)).not.toContainEqual(expect.objectContaining({ id }));
    await expireLease(id);
    expect(await repository.unattended(3600)).toContainEqual({ id, attempt: 1 });
    const second = await repository.claim(id, 2);
    expect(second).toEqual(expect.objectContaining({ attempt: 2, status: 'running' }));
    // The first runner's writes find the row no longer theirs.
    expect(await repository.progress(id, 1, { customers: 5, eventsReplayed: 50 })).toBe(false);
    expect(await repository.complete(id, 1, { customers: 5, eventsReplayed: 50 }, RESULTS, null)).toBe(false);
    expect(await repository.progress(id, 2, { customers: 1, eventsReplayed: 10 })).toBe(true);
    expect(await repository.complete(id, 2, { customers: 2, eventsReplayed: 20 }, { ...RESULTS, points: 7 }, null)).toBe(true);
    expect(await repository.find(tenant.organizationId, id)).toEqual(
      expect.objectContaining({ status: 'completed', customers: 2, events_replayed: '20', results: { ...RESULTS, points: 7 }, completed_at: expect.any(Date) }),
    );
  });

  it('stops a cancelled run: its next write finds the row cancelled; a failed run is queued again until its last attempt', async () => {
    const cancelled = await create();
    await repository.claim(cancelled, 2);
    expect(await repository.cancel(tenant.organizationId, cancelled)).toEqual(expect.objectContaining({ status: 'cancelled' }));
    expect(await repository.progress(cancelled, 1, { customers: 1, eventsReplayed: 1 })).toBe(false);
    expect(await repository.complete(cancelled, 1, { customers: 1, eventsReplayed: 1 }, RESULTS, null)).toBe(false);
    expect(await status(cancelled)).toBe('cancelled');

    const failing = await create();
    await repository.claim(failing, 2);
    await repository.fail(failing, 1, 'database went away', false);
    expect(await status(failing)).toBe('queued');
    expect(await repository.claim(failing, 2)).toEqual(expect.objectContaining({ attempt: 2 }));
    await repository.fail(failing, 2, 'database went away again', true);
    expect(await repository.find(tenant.organizationId, failing)).toEqual(expect.objectContaining({ status: 'failed', error: 'database went away again' }));
  });

  it('leaves failed a simulation whose runs all stopped (workers dying), after MAX_ATTEMPTS of them', async () => {
    const id = await create();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await repository.claim(id, 2)).toEqual(expect.objectContaining({ attempt }));
      await expireLease(id);
    }
    expect(await repository.claim(id, 2)).toBeNull();
    expect(await repository.find(tenant.organizationId, id)).toEqual(expect.objectContaining({ status: 'failed', error: expect.stringContaining('stopped') }));
  });

  it('answers another organization’s simulation as missing', async () => {
    const other = await seedTenant(db);
    const id = await create();
    expect(await repository.find(other.organizationId, id)).toBeNull();
    expect(await repository.cancel(other.organizationId, id)).toBeNull();
    expect(await status(id)).toBe('queued');
  });
});
