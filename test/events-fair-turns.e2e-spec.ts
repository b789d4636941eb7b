import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue, Worker, type Job } from 'bullmq';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { queueJobs, type EvaluateJobData } from '../src/modules/events/enqueue.js';
import { OrganizationBacklog } from '../src/queues/organization-backlog.js';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { createBehaviors } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createTenant, type TestTenant } from './factories/tenant.factory.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';

jest.setTimeout(60_000);

/** Jobs of one event each (ids from `from`), all of one organization. */
const jobsOf = (organizationId: number, count: number, from: number) =>
  Array.from({ length: count }, (_, i) => ({ organizationId, keys: [{ id: String(from + i), occurredAt: '2026-01-01T00:00:00.000000Z' }] }));

/**
 * Issue #28: one organization's events cannot hold back another's. Each organization's jobs are counted while queued
 * or running, and queued at their place in that backlog: a worker takes the organizations' k-th jobs side by side.
 */
describe('fair turns between organizations on the events queue (real Redis)', () => {
  const prefix = ownQueuePrefix('fair-turns');
  const connection = { url: loadConfig(process.env).redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue(QueueName.Events, { connection, prefix });
  const backlog = new OrganizationBacklog(queue);

  afterAll(async () => {
    await queue.close();
    await deleteQueueKeys(prefix);
  });

  /** Runs one worker (one job at a time) until `count` jobs ran; answers their organizations and first ids in order. */
  async function takeJobs(count: number): Promise<string[]> {
    const taken: string[] = [];
    const worker = new Worker<EvaluateJobData>(
      QueueName.Events,
      async (job: Job<EvaluateJobData>) => {
        taken.push(`${job.data.organizationId}:${job.data.eventIds[0]}`);
        if (job.data.inBacklog) await backlog.done(job.data.organizationId!);
      },
      { connection, prefix, concurrency: 1 },
    );
    try {
      await waitFor(() => taken.length >= count, 20_000, `${count} jobs taken`);
    } finally {
      await worker.close();
    }
    return taken;
  }

  it('takes the organizations’ first jobs side by side, each organization’s in the order it queued them', async () => {
    await queueJobs(queue, jobsOf(1, 5, 100), 'evaluate', 'a', true);
    await queueJobs(queue, jobsOf(2, 2, 200), 'evaluate', 'b', true);
    await queueJobs(queue, jobsOf(1, 1, 105), 'evaluate', 'a', true);

    expect(await takeJobs(8)).toEqual(['1:100', '2:200', '1:101', '2:201', '1:102', '1:103', '1:104', '1:105']);
    // Every job ended: both backlogs are empty, so the next job of either starts again at the front.
    expect(await backlog.current(1)).toBe(1);
    expect(await backlog.current(2)).toBe(1);
  });

  it('keeps an organization’s order while its backlog shrinks: a new job never passes its older ones', async () => {
    await queueJobs(queue, jobsOf(3, 3, 300), 'evaluate', 'c', true);
    await backlog.done(3); // as if the first two ran
    await backlog.done(3);
    await queueJobs(queue, jobsOf(3, 1, 303), 'evaluate', 'c', true);
    const priorities = await Promise.all(['c-300', 'c-301', 'c-302', 'c-303'].map(async (id) => (await queue.getJob(id))!.priority));
    expect(priorities).toEqual([1, 2, 3, 3]);
    await queue.obliterate({ force: true });
  });

  it('a job queued again (a sweep) takes its organization’s current place without counting', async () => {
    await queueJobs(queue, jobsOf(4, 2, 400), 'evaluate', 'd', true);
    await queueJobs(queue, jobsOf(4, 1, 400), 'evaluate', 'sweep', false);
    const swept = (await queue.getJob('sweep-400'))!;
    expect(swept.priority).toBe(3);
    expect(swept.data.inBacklog).toBe(false);
    expect(await backlog.current(4)).toBe(3);
    await queue.obliterate({ force: true });
  });

  it('jobs that Redis does not take are counted out again', async () => {
    const closed = new Queue(QueueName.Events, { connection, prefix });
    const closedBacklog = new OrganizationBacklog(closed);
    await closedBacklog.current(5); // connected, then the adding fails:
    const failing = Object.assign(Object.create(closed) as Queue, { addBulk: () => Promise.reject(new Error('Redis did not take the jobs')) });
    await expect(queueJobs(failing, jobsOf(5, 3, 500), 'evaluate', 'e', true)).rejects.toThrow('Redis did not take the jobs');
    expect(await backlog.current(5)).toBe(1);
    await closed.close();
  });
});

describe('fair turns through the API and the events worker', () => {
  const prefix = ownQueuePrefix('fair-turns-app');
  let app: INestApplication;
  let worker: INestApplicationContext | undefined;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    db = app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  async function organization(): Promise<{ tenant: TestTenant; externalId: string }> {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehaviors(app, tenant, campaign.id, [{ name: 'Visit', event: 'visit', points: 1 }]);
    return { tenant, externalId: (await createCustomer(app, tenant)).external_id };
  }

  const send = (tenant: TestTenant, externalId: string, count: number) =>
    request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/events`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ events: Array.from({ length: count }, () => ({ name: 'visit', external_id: externalId })) })
      .expect(200);

  it('an organization’s event queued behind another’s backlog is processed before most of that backlog', async () => {
    const a = await organization();
    const b = await organization();
    for (let i = 0; i < 6; i += 1) await send(a.tenant, a.externalId, 20); // six jobs of A
    await send(b.tenant, b.externalId, 1); // then one of B

    worker = await startTestWorker({ queuePrefix: prefix, workerConcurrency: 1, workerQueues: ['events'] });
    const processed = async () =>
      (await db.query(`SELECT organization_id AS org, processed_at AS at FROM events WHERE organization_id = ANY($1) AND status = 'processed'`, [[a.tenant.organizationId, b.tenant.organizationId]])) as Array<{
        org: number;
        at: Date;
      }>;
    await waitFor(async () => (await processed()).length === 121, 30_000, 'every event processed');

    const rows = await processed();
    const bAt = rows.find((r) => r.org === b.tenant.organizationId)!.at.getTime();
    const aBefore = rows.filter((r) => r.org === a.tenant.organizationId && r.at.getTime() < bAt).length;
    // Taken second (A's first job, then B's): of A's 120 events, only the first job's 20 went before B's.
    expect(aBefore).toBeLessThanOrEqual(20);
    // Every job ended: both organizations' backlogs are empty.
    const backlog = new OrganizationBacklog(app.get<Queue>(getQueueToken(QueueName.Events)));
    expect(await backlog.current(a.tenant.organizationId)).toBe(1);
    expect(await backlog.current(b.tenant.organizationId)).toBe(1);
  });
});
