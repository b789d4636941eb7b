import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrganizationTurns } from '../src/common/auth/organization-turns.js';
import { REQUEST_BYTES } from '../src/common/auth/organization-usage.js';
import { ORGANIZATION_BUSY } from '../src/common/auth/organization-turn.guard.js';
import { createTestApp } from './support/app.js';
import { inChunks, sendEvent, startProcess, statuses, type Process } from './support/listening-app.js';
import { waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

/**
 * Issue #40: the turns of an API process's requests (API_REQUESTS_AT_ONCE at once, shared by organizations) cost an
 * organization alone nothing: a burst of its own is served whole on default settings, a hot customer holds no slot
 * while its events wait for each other, and a request is refused only when its organization's waiting requests hold
 * ORGANIZATION_BYTES_WAITING bytes.
 */
describe('requests’ turns in an API process', () => {
  const POINTS = 10;
  const BURST_TIMEOUT = 120_000;

  /** A live campaign whose one behavior credits POINTS for every `visit`, and `n` customers. */
  async function program(app: INestApplication, tenant: TestTenant, n: number) {
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Every visit', event: 'visit', points: POINTS });
    return inChunks(Array.from({ length: n }, () => null), 10, () => createCustomer(app, tenant));
  }

  /** Customers of the organization by their books: "available/lifetime/ledger sum/events stored" → how many customers. */
  async function books(db: DataSource, tenant: TestTenant): Promise<Record<string, number>> {
    const rows = (await db.query(
      `SELECT c.available_points || '/' || c.lifetime_points || '/' ||
              (SELECT coalesce(sum(amount), 0) FROM points_ledger l WHERE l.customer_id = c.id) || '/' ||
              (SELECT count(*) FROM events e WHERE e.customer_id = c.id) AS books, count(*)::int AS customers
         FROM customers c WHERE c.organization_id = $1 GROUP BY 1`,
      [tenant.organizationId],
    )) as Array<{ books: string; customers: number }>;
    return Object.fromEntries(rows.map((r) => [r.books, r.customers]));
  }

  describe('on default settings', () => {
    let server: Process;

    beforeAll(async () => {
      server = await startProcess();
    });
    afterAll(() => server?.app.close());

    it(
      'a burst of 1,000 parallel V1 events of one organization: every one answered 200, every customer credited exactly',
      async () => {
        const tenant = await createTenant(server.app, { time_zone: 'UTC' });
        const customers = await program(server.app, tenant, 200);
        await sendEvent(server, tenant, customers[0].id); // the rules compiled: the burst is about the turns
        const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => sendEvent(server, tenant, customers[i % 200].id)));

        expect(statuses(answers)).toEqual({ counts: { 200: 1000 }, firstFailure: undefined });
        const first = 6 * POINTS;
        expect(await books(server.app.get(DataSource), tenant)).toEqual({ [`${first}/${first}/${first}/6`]: 1, [`${5 * POINTS}/${5 * POINTS}/${5 * POINTS}/5`]: 199 });
      },
      BURST_TIMEOUT,
    );
  });

  describe('with two requests at once', () => {
    let server: Process;
    let db: DataSource;

    beforeAll(async () => {
      server = await startProcess({ apiRequestsAtOnce: 2 });
      db = server.app.get(DataSource);
    });
    afterAll(() => server?.app.close());

    it(
      'a hot customer’s events wait for each other without a slot: another customer of the organization is served meanwhile',
      async () => {
        const tenant = await createTenant(server.app, { time_zone: 'UTC' });
        const [hot, other] = await program(server.app, tenant, 2);
        await sendEvent(server, tenant, other.id);
        // A slow event of the hot customer: its row is locked elsewhere, so its first event waits in the database.
        const lock = db.createQueryRunner();
        await lock.startTransaction();
        await lock.query('SELECT 1 FROM customers WHERE id = $1 FOR UPDATE', [hot.id]);
        const answered: string[] = [];
        const hotAnswers = Array.from({ length: 5 }, () => sendEvent(server, tenant, hot.id).then((a) => (answered.push('hot'), a)));
        const turns = server.app.get(OrganizationTurns);
        await waitFor(() => turns.load(tenant.organizationId).running === 5, 10_000, 'the hot customer’s five events in progress');

        const otherAnswer = await sendEvent(server, tenant, other.id);
        answered.push('other');
        await lock.rollbackTransaction();
        await lock.release();
        const hotStatuses = statuses(await Promise.all(hotAnswers));

        expect(otherAnswer).toMatchObject({ status: 200, body: { available_points: 2 * POINTS } });
        expect(answered[0]).toBe('other');
        expect(hotStatuses).toEqual({ counts: { 200: 5 }, firstFailure: undefined });
        expect(await books(db, tenant)).toEqual({ [`${5 * POINTS}/${5 * POINTS}/${5 * POINTS}/5`]: 1, [`${2 * POINTS}/${2 * POINTS}/${2 * POINTS}/2`]: 1 });
      },
      BURST_TIMEOUT,
    );
  });

  describe('with one request at once and room for two waiting requests of an organization', () => {
    let app: INestApplication;
    let a: TestTenant;
    let b: TestTenant;

    beforeAll(async () => {
      app = await createTestApp({ apiRequestsAtOnce: 1, organizationBytesWaiting: 2 * REQUEST_BYTES });
      a = await createTenant(app);
      b = await createTenant(app);
    });
    afterAll(() => app?.close());

    it('requests wait for a turn; past the bytes an organization may have waiting, 429 with retry-after; the others are served', async () => {
      const turns = app.get(OrganizationTurns);
      const held = await turns.take(a.organizationId)!; // the process's one slot, as a slow request of A's would hold it
      const answers: Array<Promise<{ status: number }>> = [];
      const list = (tenant: TestTenant) => answers.push(api(app, tenant).get('/management/campaigns').then((res) => res));
      list(a);
      list(a);
      await waitFor(() => turns.load(a.organizationId).waiting === 2, 10_000, 'two requests in A’s line');
      list(b); // B waits for the process's slot, in a line of its own
      await waitFor(() => turns.load(b.organizationId).waiting === 1, 10_000, 'B’s request waiting');

      const refused = await api(app, a).get('/management/campaigns').expect(429);
      expect(refused.body.errors).toEqual({ code: 'rate_limited', message: ORGANIZATION_BUSY });
      expect(refused.headers['retry-after']).toBe('1');

      held.end();
      expect((await Promise.all(answers)).map((res) => res.status)).toEqual([200, 200, 200]);
      expect([turns.load(a.organizationId), turns.load(b.organizationId)]).toEqual([
        { running: 0, waiting: 0 },
        { running: 0, waiting: 0 },
      ]);
    });
  });
});
