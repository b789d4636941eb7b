import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { EventLoopLoad } from '../src/common/http/event-loop-load.js';
import { EventsProcessor } from '../src/modules/events/events.processor.js';
import { createTestApp } from './support/app.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';

/**
 * Issue #40 item 4: while an API process's event loop is saturated, the events workers take one job at a time, so that
 * event processing yields the machine's cores to the requests; at full concurrency again once it is not.
 */
describe('the events worker yields to a saturated API', () => {
  const prefix = ownQueuePrefix('worker-yields');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix, shedLoadAtLoopPercent: 90 });
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events'], workerConcurrency: 4 });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('one events job at a time while the API says it is saturated, WORKER_CONCURRENCY again after', async () => {
    const concurrency = () => worker.get(EventsProcessor).worker.concurrency;
    expect(concurrency()).toBe(4);
    await api(app, tenant).get('/management/campaigns').expect(200); // the key verified: its next requests are counted
    const loop = jest.spyOn(app.get(EventLoopLoad), 'utilization').mockReturnValue(0.95);
    await api(app, tenant).get('/management/campaigns').expect(200); // alone: never shed
    await waitFor(() => concurrency() === 1, 10_000, 'the worker at one job at a time');

    loop.mockReturnValue(0.5);
    await api(app, tenant).get('/management/campaigns').expect(200);
    await waitFor(() => concurrency() === 4, 10_000, 'the worker at full concurrency again');
    loop.mockRestore();
  });
});
