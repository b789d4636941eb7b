import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant } from './factories/tenant.factory.js';

/** A bound on waiting for the worker, never an expectation of speed. */
const SETTLE_MS = 45_000;
jest.setTimeout(SETTLE_MS + 15_000);

/**
 * Issue #28, item 2: a simulation stops at its time budget (SIMULATION_MAX_SECONDS) with a clear failed reason. The
 * worker's clock runs an hour ahead, so its run is past a 60-second budget from its claim on.
 */
describe('a simulation past its time budget', () => {
  const prefix = ownQueuePrefix('simulation-budget');
  let app: INestApplication;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    // A database of its own: the worker's sweepers act on its clock.
    await useOwnDatabase('simulation-budget');
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, simulationMaxSeconds: 60 }, { now: () => Date.now() + 3_600_000 });
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('ends failed, saying it ran out of its time budget', async () => {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', points: 5 });
    const customer = await createCustomer(app, tenant);
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);

    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const created = await api(app, tenant).post(`/management/campaigns/${campaign.id}/simulations`).send({ simulation: { from, to } }).expect(202);
    const id = created.body.simulation.id;
    let read: Record<string, unknown> = {};
    await waitFor(
      async () => {
        read = (await api(app, tenant).get(`/management/simulations/${id}`).expect(200)).body.simulation;
        return read.status === 'failed' || read.status === 'completed';
      },
      SETTLE_MS,
      'the simulation to end',
    );
    expect(read).toMatchObject({ status: 'failed', error: 'stopped after 60 s, its time budget (SIMULATION_MAX_SECONDS): narrow its range or its customers' });
    expect(read.results ?? null).toBeNull();
  });
});
