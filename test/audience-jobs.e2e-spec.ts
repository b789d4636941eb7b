import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor, withQueue } from './support/worker.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

const DAY = 86_400_000;
const UNKNOWN_ID = 2_000_000_000;
/** How far ahead the scheduled creatives are delivered: enough for the writes before the date, short for the run. */
const AHEAD_MS = 3_000;
/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS * 2);

interface AudienceJob {
  id: number;
  status: string;
  customer_count: number | null;
  scheduled_at: string;
  completed_at: string | null;
}

interface Scheduled {
  campaignId: number;
  campaignName: string;
  campaignStarts: string;
  campaignEnds: string;
  creativeId: number;
  at: string;
}

/**
 * Scheduled delivery (contract §11): the API and a real worker in-process on a queue prefix of their own, with a
 * temporary storage directory for the CSVs.
 */
describe('scheduled creatives and audience jobs', () => {
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let storageDir: string;
  let tenant: TestTenant;
  let other: TestTenant;
  let divisionA: number;
  let divisionA1: number;
  let divisionB: number;
  let applicationId: number;
  const prefix = ownQueuePrefix('audience-jobs');
  /** The customers the scheduled creatives below target: "<external_id>,<user_id>" lines. */
  const expected: string[] = [];
  const absent: string[] = [];

  beforeAll(async () => {
    // A database of its own: every audience worker of the run sweeps the audience_jobs table, and another file's worker
    // (its own storage directory) took over this file's expired lease once, leaving the CSV where this API never looks.
    await useOwnDatabase('audience_jobs');
    storageDir = await mkdtemp(join(tmpdir(), 'audience-jobs-'));
    app = await createTestApp({ queuePrefix: prefix, storageDir });
    // sweepAfterSeconds 1: the sweeper queues a due row whose job was lost one second after its date.
    worker = await startTestWorker({ queuePrefix: prefix, storageDir, sweepAfterSeconds: 1, workerQueues: ['audience-jobs'] });
    db = app.get(DataSource);
    tenant = await createTenant(app, { multi_org_enabled: true });
    other = await createTenant(app, { multi_org_enabled: true });
    const division = async (name: string, parentId: number) =>
      (await api(app, tenant).post('/management/divisions').send({ division: { name, parent_id: parentId } }).expect(201)).body.division.id as number;
    divisionA = await division('A', tenant.rootDivisionId);
    divisionA1 = await division('A1', divisionA);
    divisionB = await division('B', tenant.rootDivisionId);
    [{ id: applicationId }] = await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [tenant.organizationId]);

    const customer = async (externalId: string, divisionId: number, tags: string[], plan: string, targeted: boolean) => {
      const user = await createCustomer(app, tenant, { external_id: externalId, division_id: divisionId, tags, attributes: { plan } });
      const line = `${/[,"]/.test(externalId) ? `"${externalId.replace(/"/g, '""')}"` : externalId},${user.id}`;
      (targeted ? expected : absent).push(line);
    };
    const run = Date.now();
    await customer(`in-a-${run}`, divisionA, ['vip'], 'gold', true);
    await customer(`in-a1, "quoted"-${run}`, divisionA1, ['vip', 'new'], 'gold', true);
    await customer(`no-vip-${run}`, divisionA, [], 'gold', false); // campaign targeting fails
    await customer(`silver-${run}`, divisionA1, ['vip'], 'silver', false); // group targeting fails
    await customer(`in-b-${run}`, divisionB, ['vip'], 'gold', false); // outside the campaign's division subtree
    await customer(`at-root-${run}`, tenant.rootDivisionId, ['vip'], 'gold', false); // above it
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  });

  /** A live campaign of division A (targeting vip), line item, group (targeting plan gold) and a scheduled CSV creative. */
  async function scheduledCreative(aheadMs = AHEAD_MS, owner = tenant): Promise<Scheduled> {
    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const campaign = await createCampaign(app, owner, {
      ...(owner === tenant ? { division_id: divisionA } : {}),
      targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }],
    });
    const lineItem = await api(app, owner)
      .post(`/management/campaigns/${campaign.id}/line_items`)
      .send({ line_item: { name: 'Main', status: 'live', ...window } })
      .expect(201);
    const group = await api(app, owner)
      .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
      .send({ creative_group: { name: 'Gold', status: 'live', ...window, targeting: [{ field: 'user.attributes.plan', op: 'eq', value: 'gold' }] } })
      .expect(201);
    const [application] = await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [owner.organizationId]);
    const at = new Date(Date.now() + aheadMs).toISOString();
    const creative = await api(app, owner)
      .post(`/management/creative_groups/${group.body.creative_groups[0].id}/creatives`)
      .send({
        creative: {
          name: 'Weekly file',
          status: 'live',
          ad_type: 'issue_audience_csv',
          creative_type: 'issue-audience-csv',
          application_id: owner === tenant ? applicationId : application.id,
          issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: at },
        },
      })
      .expect(201);
    return {
      campaignId: campaign.id,
      campaignName: campaign.name,
      campaignStarts: campaign.starts_at,
      campaignEnds: campaign.ends_at,
      creativeId: creative.body.creatives[0].id,
      at,
    };
  }

  async function jobs(creativeId: number, owner = tenant): Promise<AudienceJob[]> {
    const res = await api(app, owner).get(`/management/creatives/${creativeId}/audience_jobs`).expect(200);
    expect(res.body.status).toBe('ok');
    return res.body.audience_jobs as AudienceJob[];
  }

  async function settled(creativeId: number, count = 1): Promise<AudienceJob[]> {
    let last: AudienceJob[] = [];
    await waitFor(
      async () => {
        last = await jobs(creativeId);
        return last.length >= count && last.every((j) => !['scheduled', 'running'].includes(j.status));
      },
      SETTLE_MS,
      'the audience jobs to settle',
    );
    return last;
  }

  /**
   * Until the delayed job of an audience job is no longer in the queue: it woke the worker at its date and the worker
   * is done with it (a job is removed once completed; one that failed would stay, retried, and this would time out).
   * A cancelled job then had its chance to run.
   */
  async function jobDone(audienceJobId: number): Promise<void> {
    await withQueue(QueueName.AudienceJobs, prefix, (queue) =>
      waitFor(async () => (await queue.getJob(`audience-job-${audienceJobId}`)) === undefined, SETTLE_MS, `the delayed job of audience job ${audienceJobId} done`),
    );
  }

  /** Removes an audience job's delayed job from Redis, as a flush or a crash would lose it. */
  async function loseDelayedJob(audienceJobId: number): Promise<void> {
    expect(await withQueue(QueueName.AudienceJobs, prefix, (queue) => queue.remove(`audience-job-${audienceJobId}`))).toBe(1);
  }

  async function csvFiles(): Promise<string[]> {
    return readdir(join(storageDir, 'audience-jobs', String(tenant.organizationId))).catch(() => []);
  }

  it('delivers at the date: a completed audience job whose CSV holds exactly the targeted customers of the division subtree', async () => {
    const s = await scheduledCreative();
    const [scheduled] = await jobs(s.creativeId);
    expect(scheduled).toEqual({ id: expect.any(Number), status: 'scheduled', customer_count: null, scheduled_at: s.at, completed_at: null });

    const [done] = await settled(s.creativeId);
    expect(done).toEqual({ id: scheduled.id, status: 'completed', customer_count: 2, scheduled_at: s.at, completed_at: expect.any(String) });
    expect(new Date(done.completed_at!).getTime()).toBeGreaterThanOrEqual(new Date(s.at).getTime() - 1_000);

    const res = await api(app, tenant).get(`/management/creatives/${s.creativeId}/audience_jobs/${done.id}/download`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.split('\n');
    expect(lines[0]).toBe('external_id,user_id');
    expect(lines[lines.length - 1]).toBe('');
    const rows = lines.slice(1, -1);
    expect(rows.sort()).toEqual([...expected].sort());
    for (const line of absent) expect(rows).not.toContain(line);
  });

  it('pausing the creative before the date cancels its job: no run, no CSV', async () => {
    const s = await scheduledCreative();
    await api(app, tenant).put(`/management/creatives/${s.creativeId}`).send({ creative: { status: 'paused' } }).expect(200);
    const [cancelled] = await jobs(s.creativeId);
    expect(cancelled).toEqual(expect.objectContaining({ status: 'cancelled', customer_count: null, completed_at: null }));

    await jobDone(cancelled.id);
    expect(await jobs(s.creativeId)).toEqual([cancelled]);
    expect((await csvFiles()).filter((f) => f.startsWith(`${cancelled.id}-`))).toEqual([]);
    const res = await api(app, tenant).get(`/management/creatives/${s.creativeId}/audience_jobs/${cancelled.id}/download`);
    expectError(res, 404, 'not_found');
  });

  it("pausing the creative's campaign before the date cancels its job too", async () => {
    const s = await scheduledCreative();
    await api(app, tenant)
      .put(`/management/campaigns/${s.campaignId}`)
      .send({ campaign: { name: s.campaignName, status: 'paused', starts_at: s.campaignStarts, ends_at: s.campaignEnds } })
      .expect(200);
    const [cancelled] = await jobs(s.creativeId);
    expect(cancelled.status).toBe('cancelled');

    await jobDone(cancelled.id);
    expect(await jobs(s.creativeId)).toEqual([cancelled]);
    expect((await csvFiles()).filter((f) => f.startsWith(`${cancelled.id}-`))).toEqual([]);
  });

  it('moving scheduled_delivery_date moves the job: the old one is cancelled, a new one runs at the new date', async () => {
    const s = await scheduledCreative(3_600_000);
    const [first] = await jobs(s.creativeId);
    expect(first).toEqual(expect.objectContaining({ status: 'scheduled', scheduled_at: s.at }));

    const moved = new Date(Date.now() + AHEAD_MS).toISOString();
    await api(app, tenant)
      .put(`/management/creatives/${s.creativeId}`)
      .send({ creative: { issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: moved } } })
      .expect(200);
    const [second, old] = await jobs(s.creativeId);
    expect(old).toEqual({ ...first, status: 'cancelled' });
    expect(second).toEqual(expect.objectContaining({ status: 'scheduled', scheduled_at: moved }));

    const [done, cancelled] = await settled(s.creativeId, 2);
    expect(done).toEqual(expect.objectContaining({ id: second.id, status: 'completed', customer_count: 2 }));
    expect(cancelled).toEqual({ ...first, status: 'cancelled' });
  });

  it('a run whose delayed job was lost (Redis flushed, a job woken before its row committed) is queued by the sweeper and runs once', async () => {
    const s = await scheduledCreative();
    const [scheduled] = await jobs(s.creativeId);
    await loseDelayedJob(scheduled.id);
    const [done] = await settled(s.creativeId);
    expect(done).toEqual(expect.objectContaining({ id: scheduled.id, status: 'completed', customer_count: 2 }));
    const [row] = await db.query(`SELECT attempt FROM audience_jobs WHERE id = $1`, [scheduled.id]);
    expect(row.attempt).toBe(1);
  });

  it('a run whose worker died mid-run (its lease expired) is taken over and completed once, by the next attempt', async () => {
    const s = await scheduledCreative();
    const [scheduled] = await jobs(s.creativeId);
    // What a worker killed mid-run leaves: its job consumed, the row running, its heartbeat older than the lease.
    await loseDelayedJob(scheduled.id);
    await db.query(
      `UPDATE audience_jobs SET status = 'running', attempt = 1, started_at = now() - interval '10 minutes', heartbeat_at = now() - interval '10 minutes'
        WHERE id = $1`,
      [scheduled.id],
    );
    const [done] = await settled(s.creativeId);
    expect(done).toEqual(expect.objectContaining({ id: scheduled.id, status: 'completed', customer_count: 2 }));
    const [row] = await db.query(`SELECT attempt FROM audience_jobs WHERE id = $1`, [scheduled.id]);
    expect(row.attempt).toBe(2);
    const csv = await api(app, tenant).get(`/management/creatives/${s.creativeId}/audience_jobs/${scheduled.id}/download`).expect(200);
    expect(csv.text.split('\n').slice(1).filter(Boolean).sort()).toEqual([...expected].sort());
  });

  it('with a second worker on the queue, a job still runs once', async () => {
    const second = await startTestWorker({ queuePrefix: prefix, storageDir, sweepAfterSeconds: 1, workerQueues: ['audience-jobs'] });
    try {
      const s = await scheduledCreative();
      const [done] = await settled(s.creativeId);
      expect(done).toEqual(expect.objectContaining({ status: 'completed', customer_count: 2 }));
      const [row] = await db.query(`SELECT attempt FROM audience_jobs WHERE id = $1`, [done.id]);
      expect(row.attempt).toBe(1);
    } finally {
      await second.close();
    }
  });

  describe('routes', () => {
    let pending: Scheduled;
    let otherCreative: Scheduled;

    beforeAll(async () => {
      pending = await scheduledCreative(3_600_000);
      otherCreative = await scheduledCreative(3_600_000, other);
    });

    it('list: an unknown creative, a non-integer id and another organization\'s creative answer not_found', async () => {
      expectError(await api(app, tenant).get(`/management/creatives/${UNKNOWN_ID}/audience_jobs`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/abc/audience_jobs`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/${otherCreative.creativeId}/audience_jobs`), 404, 'not_found');
      expect(await jobs(otherCreative.creativeId, other)).toHaveLength(1);
    });

    it('download: a job not completed, an unknown job, a job of another creative or organization answer not_found', async () => {
      const [job] = await jobs(pending.creativeId);
      expect(job.status).toBe('scheduled');
      const [otherJob] = await jobs(otherCreative.creativeId, other);
      const download = (owner: TestTenant, creativeId: number | string, jobId: number | string) =>
        api(app, owner).get(`/management/creatives/${creativeId}/audience_jobs/${jobId}/download`);
      expectError(await download(tenant, pending.creativeId, job.id), 404, 'not_found');
      expectError(await download(tenant, pending.creativeId, UNKNOWN_ID), 404, 'not_found');
      expectError(await download(tenant, pending.creativeId, 'x'), 404, 'not_found');
      expectError(await download(tenant, pending.creativeId, otherJob.id), 404, 'not_found');
      expectError(await download(tenant, otherCreative.creativeId, otherJob.id), 404, 'not_found');
      expectError(await download(tenant, UNKNOWN_ID, job.id), 404, 'not_found');
    });

    it('deleting the creative cancels its job; its list then answers not_found', async () => {
      const [job] = await jobs(pending.creativeId);
      await api(app, tenant).delete(`/management/creatives/${pending.creativeId}`).expect(200);
      const [row] = await db.query(`SELECT status FROM audience_jobs WHERE id = $1`, [job.id]);
      expect(row.status).toBe('cancelled');
      expectError(await api(app, tenant).get(`/management/creatives/${pending.creativeId}/audience_jobs`), 404, 'not_found');
    });
  });
});

