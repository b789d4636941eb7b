import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createBehavior } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { useOwnDatabase } from './support/database.js';
import { LocalRedisCluster, startRedisCluster } from './support/redis-cluster.js';
import { freePort } from './support/ports.js';
import { killWorker, logLines, spawnApi, spawnWorker, waitFor, WorkerProcess } from './support/worker.js';

jest.setTimeout(90_000);

/**
 * REDIS_CLUSTER=true: the built API (two processes) and a worker, as separate processes, on a Redis Cluster of three primaries. Every
 * Redis use of the service (BullMQ's scripts, the rate limit and metrics pipelines, api key invalidation) runs there.
 */
describe('on a Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let apiProcess: WorkerProcess;
  let worker: WorkerProcess;
  let server: INestApplication;
  let tenant: TestTenant;
  const prefix = `{${process.env.QUEUE_PREFIX}-cluster}`;

  beforeAll(async () => {
    // A database of its own (copied from the run's template) for the processes below: the worker's sweeper queues
    // every pending event of its database, and those of the specs running beside this one (V2 events on queues no
    // worker reads) would be processed and counted in this spec's exact /metrics counters.
    await useOwnDatabase('cluster');
    cluster = await startRedisCluster();
    const port = await freePort();
    // The seed node given in REDIS_URL does not own the prefix's slot: a client that ignored the cluster would fail.
    const slot = Number(await cluster.client.cluster('KEYSLOT', prefix));
    const slots = await cluster.client.cluster('SLOTS');
    const owner = slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
    const seed = cluster.ports.find((p) => p !== owner)!;
    const env = { REDIS_CLUSTER: 'true', REDIS_URL: `redis://127.0.0.1:${seed}`, QUEUE_PREFIX: prefix, PORT: String(port) };
    apiProcess = spawnApi({ ...env, API_PROCESSES: '2' });
    worker = spawnWorker(env);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(() => fetch(`${url}/health/ready`).then((r) => r.ok, () => false), 30_000, `the API on the cluster (${apiProcess.stderr})`);
    await waitFor(() => logLines(worker).some((line) => line.msg === 'worker ready'), 30_000, `the worker on the cluster (${worker.stderr})`);
    // The factories speak HTTP through supertest, which takes a URL as readily as an in-process server.
    server = { getHttpServer: () => url } as unknown as INestApplication;
    tenant = await createTenant(server);
  });

  afterAll(async () => {
    if (apiProcess) await killWorker(apiProcess, 'SIGTERM');
    if (worker) await killWorker(worker, 'SIGTERM');
    await cluster?.stop();
  });

  it('spreads nothing: every key the service wrote carries the hash tag, on the one node that owns its slot', async () => {
    await request(server.getHttpServer()).get('/metrics').expect(200);
    const perNode = await Promise.all(cluster.client.nodes('master').map((node) => node.keys(`${prefix}*`)));
    const owners = perNode.filter((keys) => keys.length > 0);
    expect(owners).toHaveLength(1);
    expect(owners[0].some((key) => key.startsWith(`${prefix}:events:`))).toBe(true);
  });

  it('evaluates V2 events in the worker and V1 events in the API: exact points, counted in /metrics', async () => {
    const campaign = await createCampaign(server, tenant);
    await createBehavior(server, tenant, campaign.id, { name: 'Visit', event: 'visit', event_count: 1, points: 10 });
    const [a, b] = [await createCustomer(server, tenant), await createCustomer(server, tenant)];
    const events = [a, b, a].map((customer, i) => ({ name: 'visit', user_id: customer.id, transaction_id: `cluster-${i}` }));
    await request(server.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/events`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ events })
      .expect(200, { status: 'ok' });
    await api(server, tenant).post(`/users/${b.id}/events`).send({ events: { visit: 1 } }).expect(200);

    const points = async (id: string) => (await api(server, tenant).get(`/users/${id}`).expect(200)).body.user.available_points;
    // b's V2 event may be evaluated in a later transaction than a's (the worker skips a customer the V1 request holds).
    await waitFor(async () => (await points(a.id)) === 20 && (await points(b.id)) === 20, 30_000, 'the worker to evaluate the V2 events');
    expect([await points(a.id), await points(b.id)]).toEqual([20, 20]);
    await waitFor(async () => /events_total\{outcome="processed"\} 4\b/.test((await request(server.getHttpServer()).get('/metrics')).text), 10_000, 'the shared counters');
  });

  it('deactivating an api key reaches both API processes through pub/sub on the cluster, long before their cache expires', async () => {
    const other = await createTenant(server);
    // Verified, hence cached for API_KEY_CACHE_SECONDS (30 s), by both processes (connections go round robin).
    for (let i = 0; i < 6; i += 1) await api(server, other).get('/management/campaigns').expect(200);
    await request(server.getHttpServer()).delete(`/admin/v1/api_keys/${other.apiKey}`).set('Authorization', `Bearer ${process.env.ADMIN_TOKEN}`).expect(200);
    const statuses = async () => Promise.all(Array.from({ length: 6 }, async () => (await api(server, other).get('/management/campaigns')).status));
    await waitFor(async () => (await statuses()).every((status) => status === 401), 5_000, 'every process to drop the key');
  });
});
