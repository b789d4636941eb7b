import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { OrganizationTurns } from '../src/common/auth/organization-turns.js';
import { EventLoopLoad } from '../src/common/http/event-loop-load.js';
import { createTestApp } from './support/app.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';

/**
 * Issue #28: a saturated API process sheds the organization asking the most of it (SHED_LOAD_AT_LOOP_PERCENT). The
 * process's event loop is made to read as saturated (EventLoopLoad's own measurement is a unit spec); the spec holds
 * an organization's turn itself, as a request of its own in progress would.
 */
describe('load shedding by organization', () => {
  const saturate = (app: INestApplication, utilization: number) => jest.spyOn(app.get(EventLoopLoad), 'utilization').mockReturnValue(utilization);
  const SHED = { code: 'rate_limited', message: 'the service is saturated and this organization asks the most of it; retry in a second' };

  describe('two organizations on one process', () => {
    let app: INestApplication;
    let a: TestTenant;
    let b: TestTenant;

    beforeAll(async () => {
      app = await createTestApp({ shedLoadAtLoopPercent: 90 });
      a = await createTenant(app);
      b = await createTenant(app);
    });
    afterAll(() => app?.close());
    afterEach(() => jest.restoreAllMocks());

    // A key's first request is verified by hashing its secret, not from the cache: it is not counted.
    const requests = async (tenant: TestTenant, n: number) => {
      for (let i = 0; i < n; i += 1) await api(app, tenant).get('/management/campaigns').expect(200);
    };

    it('refuses the organization asking the most, before reading its body, and serves the other', async () => {
      await requests(a, 4);
      await requests(b, 2);
      const end = await app.get(OrganizationTurns).take(a.organizationId)!; // A has a request in progress
      try {
        saturate(app, 0.95);
        const refused = await api(app, a).post('/management/campaigns').set('content-type', 'application/json').send('{not json');
        expect(refused.status).toBe(429);
        expect(refused.body.errors).toEqual(SHED);
        expect(refused.headers['retry-after']).toBe('1');
        await api(app, b).get('/management/campaigns').expect(200);
        // A wrong secret is not A's: the guards answer it.
        await request(app.getHttpServer()).get(`/priv/v1/apps/${a.apiKey}/management/campaigns`).auth(a.apiKey, 'wrong').expect(401);

        saturate(app, 0.85); // under the threshold
        await api(app, a).get('/management/campaigns').expect(200);
      } finally {
        end();
      }
    });

    it('keeps one request of the organization going: with none in progress, it is served', async () => {
      await requests(a, 4);
      await requests(b, 2);
      saturate(app, 1);
      await api(app, a).get('/management/campaigns').expect(200);
    });
  });

  it('never sheds an organization alone on the process, nor anyone when the setting is 0', async () => {
    for (const [percent, other] of [[90, false], [0, true]] as const) {
      const app = await createTestApp({ shedLoadAtLoopPercent: percent });
      try {
        const a = await createTenant(app);
        for (let i = 0; i < 4; i += 1) await api(app, a).get('/management/campaigns').expect(200);
        if (other) {
          const b = await createTenant(app);
          for (let i = 0; i < 2; i += 1) await api(app, b).get('/management/campaigns').expect(200);
        }
        const end = await app.get(OrganizationTurns).take(a.organizationId)!;
        saturate(app, 1);
        await api(app, a).get('/management/campaigns').expect(200);
        end();
      } finally {
        jest.restoreAllMocks();
        await app.close();
      }
    }
  });
});
