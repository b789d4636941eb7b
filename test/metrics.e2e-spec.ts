import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { queueJobs } from '../src/modules/events/enqueue.js';
import { QueueName } from '../src/queues/queue-names.js';
import { LATENCY_BUCKETS } from '../src/modules/metrics/event-counters.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

/** A bound on waiting for the worker and the counters' flush (every second), never an expectation of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS + 15_000);

/** The value of one sample of the Prometheus text (labels given in the order the service writes them), or 0. */
function sample(text: string, name: string, labels: Record<string, string | number> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ? match[2].split(',') : [];
    if (wanted.every((w) => present.includes(w))) return Number(match[3]);
  }
  return 0;
}

describe('/metrics', () => {
  // A queue prefix of its own: the event counters and histograms are this spec's alone.
  const prefix = ownQueuePrefix('metrics');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let tenant: TestTenant;

  const scrape = async () => {
    const res = await request(app.getHttpServer()).get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8'); // the Prometheus text format, as documented
    return res.text;
  };
  const sendV2 = (events: unknown[]) => request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events });

  beforeAll(async () => {
    // A database of its own (copied from the run's template): every worker's sweeper queues the pending events of its
    // database on its own queue, so on the shared one this spec's worker could process (and count in the exact
    // counters below) the events other specs running beside it left pending.
    await useOwnDatabase('metrics');
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix });
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', event_count: 1, points: 10 });
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('counts requests by method, route pattern and status, with their latency', async () => {
    const customer = await createCustomer(app, tenant);
    const before = await scrape();
    const v2 = '/priv/v2/apps/:api_key/events';
    const retrieval = '/priv/v1/apps/:api_key/users/:user_id/events';
    const count = (text: string, method: string, route: string, status: number) => sample(text, 'http_requests_total', { method, route, status });
    await request(app.getHttpServer()).get(`/priv/v1/apps/${tenant.apiKey}/users/${customer.id}/events`).auth(tenant.apiKey, tenant.apiSecret).expect(200);
    await sendV2([{ name: '' }]).expect(400); // rejected whole: stores nothing, so the event counters below stay this spec's
    const after = await scrape();
    expect(count(after, 'GET', retrieval, 200)).toBe(count(before, 'GET', retrieval, 200) + 1);
    expect(count(after, 'POST', v2, 400)).toBe(count(before, 'POST', v2, 400) + 1);
    expect(sample(after, 'http_request_duration_seconds_count', { method: 'GET', route: retrieval })).toBeGreaterThanOrEqual(1);
  });

  it('counts events by outcome across processes, and the processing lag and job duration histograms', async () => {
    const before = await scrape();
    const outcome = (text: string, name: string) => sample(text, 'events_total', { outcome: name });
    const lagCount = (text: string) => sample(text, 'events_processing_lag_seconds_count');
    const [a, b] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    const transaction = `t-${Date.now()}`;
    await sendV2([
      { name: 'visit', user_id: a.id, transaction_id: transaction },
      { name: 'visit', user_id: b.id },
      { name: 'visit', external_id: 'nobody-at-all' },
    ]).expect(200);
    await sendV2([{ name: 'visit', user_id: a.id, transaction_id: transaction }]).expect(200); // ignored: same id

    let after = '';
    await waitFor(
      async () => {
        after = await scrape();
        // Each process flushes its counters on its own timer: the API's (accepted, duplicates) may come after the
        // worker's (processed, rejected, lag). Wait for all of them, then check they are exact.
        const reached = (name: string, n: number) => outcome(after, name) >= outcome(before, name) + n;
        return reached('accepted', 3) && reached('duplicates', 1) && reached('processed', 2) && reached('rejected', 1) && lagCount(after) >= lagCount(before) + 2;
      },
      SETTLE_MS,
      'the worker to process the events and the counters to be flushed',
      200,
    );
    expect(outcome(after, 'accepted') - outcome(before, 'accepted')).toBe(3);
    expect(outcome(after, 'duplicates') - outcome(before, 'duplicates')).toBe(1);
    expect(outcome(after, 'processed') - outcome(before, 'processed')).toBe(2);
    expect(outcome(after, 'rejected') - outcome(before, 'rejected')).toBe(1);
    expect(lagCount(after) - lagCount(before)).toBe(2);

    // Buckets are cumulative and end with +Inf = count; the sum is a duration (non-negative, finite).
    for (const name of ['events_processing_lag_seconds', 'events_job_duration_seconds']) {
      const buckets = [...LATENCY_BUCKETS, '+Inf'].map((le) => sample(after, `${name}_bucket`, { le }));
      expect(buckets).toEqual([...buckets].sort((x, y) => x - y));
      expect(buckets.at(-1)).toBe(sample(after, `${name}_count`));
      expect(sample(after, `${name}_count`)).toBeGreaterThan(0);
      expect(Number.isFinite(sample(after, `${name}_sum`)) && sample(after, `${name}_sum`) >= 0).toBe(true);
    }
  });

  it('shows the events queue depth by state', async () => {
    const text = await scrape();
    for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed']) {
      expect(text).toMatch(new RegExp(`^events_queue_jobs\\{state="${state}"\\} \\d+$`, 'm'));
    }
  });

  it('counts jobs queued at their organization’s place (BullMQ priorities) as waiting', async () => {
    const queue = app.get<Queue>(getQueueToken(QueueName.Events));
    await queue.pause();
    try {
      const waiting = async () => sample(await scrape(), 'events_queue_jobs', { state: 'waiting' });
      const before = await waiting();
      await queueJobs(queue, [{ organizationId: 0, keys: [{ id: '1', occurredAt: '2026-01-01T00:00:00.000000Z' }] }], 'evaluate', 'metrics-spec', false);
      expect(await waiting()).toBe(before + 1);
      await queue.remove('metrics-spec-1');
    } finally {
      await queue.resume();
    }
  });
});
