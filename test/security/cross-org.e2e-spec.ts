import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { behaviorBody } from '../factories/behavior.factory.js';
import { api, TestTenant } from '../factories/tenant.factory.js';
import { createTestApp } from '../support/app.js';
import { useOwnDatabase } from '../support/database.js';
import { expectError, expectErrorAmongOthers } from '../support/errors.js';
import { basic, fillPath, Method, Route, routeList, routeName, send } from './routes.js';
import { buildWorld, pathValues, snapshotOrganization, UNKNOWN_VALUES, World } from './world.js';

const DAY = 86_400_000;
const window = () => ({ starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() });
const v1Events = () => ({ events: { visit: 1 } });
const perform = () => ({ domain: 'complete_campaign' });

/**
 * A valid body for each write route with an id in its path (keyed by method and path after /apps/{api_key}), so that
 * the answer depends on the ids alone: an invalid body could be refused before the ids are looked up.
 */
const BODIES: Record<string, (mine: World) => unknown> = {
  'POST /users/{user_id}/events': v1Events,
  'POST /external/users/{external_id}/events': v1Events,
  'POST /users/{user_id}/campaigns/{campaign_id}/events': v1Events,
  'POST /external/users/{external_id}/campaigns/{campaign_id}/events': v1Events,
  'POST /users/{user_id}/external/campaigns/{permalink}/events': v1Events,
  'POST /external/users/{external_id}/external/campaigns/{permalink}/events': v1Events,
  'POST /users/{user_id}/campaigns/{ad_campaign_id}/perform': perform,
  'POST /users/{user_id}/external/campaigns/{permalink}/perform': perform,
  'POST /external/users/{external_id}/campaigns/{ad_campaign_id}/perform': perform,
  'POST /external/users/{external_id}/external/campaigns/{permalink}/perform': perform,
  'POST /users/{user_id}/points/debits': () => ({ debit: { points: 1 } }),
  'POST /external/users/{external_id}/points/debits': () => ({ debit: { points: 1 } }),
  'POST /users/{user_id}/events/reversals': () => ({ reversal: { transaction_id: 'order-1' } }),
  'POST /external/users/{external_id}/events/reversals': () => ({ reversal: { transaction_id: 'order-1' } }),
  'PUT /users/{user_id}': () => ({ user: { tags: ['taken'], attributes: { plan: 'none' } } }),
  'PUT /external/users/{external_id}': () => ({ user: { tags: ['taken'], attributes: { plan: 'none' } } }),
  'PUT /management/divisions/{division_id}': () => ({ division: { name: 'Taken' } }),
  'PUT /management/tiers/{tier_id}': () => ({ tier: { name: 'Taken', min_points: 1 } }),
  'PUT /management/offers/{offer_id}': () => ({ offer: { name: 'Taken', points: 1000 } }),
  'PUT /management/campaigns/{campaign_id}': () => ({ campaign: { name: 'Taken', status: 'draft', ...window() } }),
  'PUT /management/external/campaigns/{permalink}': () => ({ campaign: { name: 'Taken', status: 'draft', ...window() } }),
  'POST /management/campaigns/{campaign_id}/line_items': () => ({ line_item: { name: 'Taken', status: 'live', ...window() } }),
  'PUT /management/line_items/{line_item_id}': () => ({ line_item: { name: 'Taken', status: 'paused' } }),
  'POST /management/campaigns/{campaign_id}/behaviors/_batch': () => ({ behaviors: [behaviorBody({ name: 'Taken', event: 'visit' })] }),
  'PUT /management/behaviors/{behavior_id}': () => ({ behavior: behaviorBody({ name: 'Taken', event: 'visit', points: 1000 }) }),
  'POST /management/line_items/{line_item_id}/creative_groups': () => ({ creative_group: { name: 'Taken', status: 'live', ...window() } }),
  'PUT /management/creative_groups/{creative_group_id}': () => ({ creative_group: { name: 'Taken', status: 'paused' } }),
  'POST /management/creative_groups/{creative_group_id}/creatives': (mine) => ({
    creative: {
      name: 'Taken',
      status: 'live',
      ad_type: 'push_message',
      creative_type: 'messaging-platform-push',
      application_id: mine.applicationId,
      issue_audience_csv: { delivery_method: 'triggered', behavior_id: mine.behaviorId },
    },
  }),
  'PUT /management/creatives/{creative_id}': () => ({ creative: { name: 'Taken', message: 'taken' } }),
  'POST /management/campaigns/{campaign_id}/simulations': () => ({ simulation: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } }),
  'POST /management/campaigns/{campaign_id}/experiment/end': () => ({ winner: 'treatment' }),
};

/** Admin routes act on any organization by design (the admin token is not a tenant): they are not part of this check. */
const ADMIN_ROUTES = ['POST /admin/v1/organizations/{id}/applications'];

const bodyKey = (route: Route) => `${route.method.toUpperCase()} ${route.path.replace(/^\/priv\/v\d\/apps\/\{api_key\}/, '')}`;
const isWrite = (method: Method) => method === 'post' || method === 'put';

/** Every non-empty subset of a route's ids: each is one case where those ids are the other organization's. */
function subsets(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let mask = 1; mask < 1 << ids.length; mask++) out.push(ids.filter((_id, i) => mask & (1 << i)));
  return out;
}

describe('cross-organization access: every route with an id, called with another organization’s ids (contract §3)', () => {
  let app: INestApplication;
  let db: DataSource;
  let storageDir: string;
  let mine: World;
  let theirs: World;
  let idRoutes: Route[];
  let before: Record<string, unknown[]>;

  /** A request to `route` with `values` in its path, the credentials of `tenant` and the route's body. */
  function call(route: Route, tenant: TestTenant, values: Record<string, string | number>): Promise<Response> {
    const req = send(app, route.method, fillPath(route, { ...values, api_key: tenant.apiKey })).set('Authorization', basic(tenant.apiKey, tenant.apiSecret));
    return isWrite(route.method) ? req.send(BODIES[bodyKey(route)](mine) as object) : req;
  }

  beforeAll(async () => {
    // A database of its own (copied from the run's template): the last test finds every row of the other organization
    // as it was, and on the shared database the sweeper of a worker in a spec running beside this one would queue and
    // attempt this spec's pending webhook deliveries (it did, once, with two test files at a time).
    await useOwnDatabase('cross-org');
    storageDir = await mkdtemp(join(tmpdir(), 'security-cross-org-'));
    app = await createTestApp({ storageDir });
    db = app.get(DataSource);
    mine = await buildWorld(app, storageDir);
    theirs = await buildWorld(app, storageDir);
    idRoutes = (await routeList(app)).filter((route) => route.ids.length > 0);
    before = await snapshotOrganization(db, theirs.tenant.organizationId);
  });
  afterAll(async () => {
    await app.close();
    await rm(storageDir, { recursive: true, force: true });
  });

  const tenantRoutes = () => idRoutes.filter((route) => route.path.startsWith('/priv/'));

  it('covers the whole route list: every id has a value, every write a body, and only admin routes are left out', () => {
    const values = pathValues(theirs);
    const missing = tenantRoutes().flatMap((route) => [
      ...route.ids.filter((id) => values[id] === undefined).map((id) => `${routeName(route)}: no value for {${id}}`),
      ...(isWrite(route.method) && !BODIES[bodyKey(route)] ? [`${routeName(route)}: no body`] : []),
    ]);
    expect(missing).toEqual([]);
    expect(idRoutes.filter((route) => !route.path.startsWith('/priv/')).map(routeName)).toEqual(ADMIN_ROUTES);
    expect(tenantRoutes().length).toBeGreaterThanOrEqual(50);
  });

  it('lets the owning organization read each of these objects (so the 404s below are not wrong ids)', async () => {
    const failures: string[] = [];
    for (const route of tenantRoutes().filter((r) => r.method === 'get')) {
      const res = await call(route, theirs.tenant, pathValues(theirs));
      if (res.status !== 200) failures.push(`${routeName(route)} → ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 404 in the error envelope, exactly as for ids that do not exist, whichever of the ids are the other organization’s', async () => {
    const failures: string[] = [];
    const allTheirsCodes = new Set<string>();
    let cases = 0;
    for (const route of tenantRoutes()) {
      for (const foreign of subsets(route.ids)) {
        cases += 1;
        const crossed = { ...pathValues(mine), ...Object.fromEntries(foreign.map((id) => [id, pathValues(theirs)[id]])) };
        const unknown = { ...pathValues(mine), ...Object.fromEntries(foreign.map((id) => [id, UNKNOWN_VALUES[id]])) };
        const res = await call(route, mine.tenant, crossed);
        const reference = await call(route, mine.tenant, unknown);
        const label = `${routeName(route)} with their ${foreign.join(', ')}`;
        if (foreign.length === route.ids.length) allTheirsCodes.add(res.body?.errors?.code);
        if (res.status !== 404 || res.body?.status !== 'error') failures.push(`${label} → ${res.status} ${res.text}`);
        else if (JSON.stringify(res.body) !== JSON.stringify(reference.body)) failures.push(`${label} → ${res.text}, unknown ids → ${reference.text}`);
      }
    }
    expect(failures).toEqual([]);
    // With all ids theirs the customer or object is looked up first: not_found. A foreign campaign alone in a V1 event
    // path answers No_active_campaign_found, which is what a campaign that does not exist answers (contract §2).
    expect([...allTheirsCodes]).toEqual(['not_found']);
    expect(cases).toBe(tenantRoutes().reduce((sum, route) => sum + 2 ** route.ids.length - 1, 0));
  });

  describe('ids inside bodies and query strings', () => {
    const theirDivision = () => theirs.divisionId;
    it.each<[string, () => Promise<Response>, string]>([
      ['a customer in their division', () => api(app, mine.tenant).post('/users').send({ user: { external_id: 'moved-in', division_id: theirDivision() } }), 'user.division_id'],
      ['a customer moved to their division', () => api(app, mine.tenant).put(`/users/${mine.customer.id}`).send({ user: { division_id: theirDivision() } }), 'user.division_id'],
      ['a campaign in their division', () => api(app, mine.tenant).post('/management/campaigns').send({ campaign: { name: 'Theirs', ...window(), division_id: theirDivision() } }), 'campaign.division_id'],
      [
        'a campaign requiring their campaign',
        () => api(app, mine.tenant).post('/management/campaigns').send({ campaign: { name: 'Prereq', ...window(), prerequisite_campaign_ids: [theirs.campaign.id] } }),
        'campaign.prerequisite_campaign_ids',
      ],
      ['a division under their division', () => api(app, mine.tenant).post('/management/divisions').send({ division: { name: 'Under', parent_id: theirDivision() } }), 'division.parent_id'],
      ['a division moved under theirs', () => api(app, mine.tenant).put(`/management/divisions/${mine.divisionId}`).send({ division: { parent_id: theirDivision() } }), 'division.parent_id'],
      ['a creative of their application', () => api(app, mine.tenant).put(`/management/creatives/${mine.creativeId}`).send({ creative: { application_id: theirs.applicationId } }), 'creative.application_id'],
      [
        'a creative triggered by their behavior',
        () =>
          api(app, mine.tenant)
            .put(`/management/creatives/${mine.creativeId}`)
            .send({ creative: { issue_audience_csv: { delivery_method: 'triggered', behavior_id: theirs.behaviorId } } }),
        'creative.issue_audience_csv.behavior_id',
      ],
      [
        'a behavior issuing their offer',
        () => api(app, mine.tenant).put(`/management/behaviors/${mine.behaviorId}`).send({ behavior: behaviorBody({ name: 'Visit', event: 'visit', outcomes: [{ deal: { id: theirs.offerId } }] }) }),
        'behavior.outcome_config.0.deal.id',
      ],
      [
        'an event in their division',
        () => api(app, mine.tenant).post(`/users/${mine.customer.id}/events`).send({ events: { visit: { context: { division_id: String(theirDivision()) } } } }),
        'events.visit.context.division_id',
      ],
      ['a retrieval limited to their division', () => api(app, mine.tenant).get(`/users/${mine.customer.id}/events?division_ids=${theirDivision()}`), 'division_ids'],
    ])('answers 400 validation naming the field for %s', async (_label, attempt, field) => {
      const res = await attempt();
      // A behavior's answer also carries the behavior with its errors (contract §6).
      expect(expectErrorAmongOthers(res, 400, 'validation')).toContain(field);
    });

    it('answers 400 missing_data to a V2 event in their division (any invalid event rejects the batch)', async () => {
      const v2 = await send(app, 'post', `/priv/v2/apps/${mine.tenant.apiKey}/events`)
        .set('Authorization', basic(mine.tenant.apiKey, mine.tenant.apiSecret))
        .send({ events: [{ name: 'visit', user_id: mine.customer.id, context: { division_id: String(theirDivision()) } }] });
      expect(expectError(v2, 400, 'missing_data')).toEqual(['events[0].context.division_id']);
    });

    it('accepts V2 events naming their customer by user_id or external_id as unknown customers of its own', async () => {
      const res = await send(app, 'post', `/priv/v2/apps/${mine.tenant.apiKey}/events`)
        .set('Authorization', basic(mine.tenant.apiKey, mine.tenant.apiSecret))
        .send({ events: [{ name: 'visit', user_id: theirs.customer.id }, { name: 'visit', external_id: theirs.customer.external_id }] });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const stored = (await db.query('SELECT organization_id, customer_id FROM events WHERE organization_id = $1 AND source = $2', [
        mine.tenant.organizationId,
        'v2',
      ])) as Array<{ organization_id: number; customer_id: string | null }>;
      expect(stored).toEqual([
        { organization_id: mine.tenant.organizationId, customer_id: null },
        { organization_id: mine.tenant.organizationId, customer_id: null },
      ]);
    });

    it('lists only its own changes in its audit log', async () => {
      const res = await api(app, mine.tenant).get('/management/audit_log?limit=100').expect(200);
      expect(res.body.total).toBeGreaterThan(0);
      expect(res.body.audit_log).toHaveLength(res.body.total);
      expect(new Set(res.body.audit_log.map((entry: { api_key: string }) => entry.api_key))).toEqual(new Set([mine.tenant.apiKey]));
    });
  });

  // In a describe of its own: Jest runs a block's tests before its nested blocks, and this must come after them all.
  describe('afterwards', () => {
    it('left every row of the other organization exactly as it was', async () => {
      expect(await snapshotOrganization(db, theirs.tenant.organizationId)).toEqual(before);
    });
  });
});
