import type { INestApplication } from '@nestjs/common';
import { OrganizationTurns } from '../src/common/auth/organization-turns.js';
import { createTestApp } from './support/app.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { waitFor } from './support/worker.js';

/**
 * Issue #28: each organization's share of an API process (ORGANIZATION_REQUESTS_AT_ONCE served at once, then
 * ORGANIZATION_REQUESTS_WAITING in its own line; past it, 429). Here one request at once and a line of one: the spec
 * holds the organization's turn itself, as a slow request of its own would.
 */
describe('organizations’ turns in an API process', () => {
  let app: INestApplication;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    app = await createTestApp({ organizationRequestsAtOnce: 1, organizationRequestsWaiting: 1 });
    a = await createTenant(app);
    b = await createTenant(app);
  });
  afterAll(() => app?.close());

  it('a request waits for its organization’s turn, another organization’s does not, and a full line answers 429', async () => {
    const turns = app.get(OrganizationTurns);
    const end = await turns.take(a.organizationId)!;
    let waitingAnswered = false;
    const waiting = api(app, a)
      .get('/management/campaigns')
      .then((res) => {
        waitingAnswered = true;
        return res;
      });
    await waitFor(() => turns.load(a.organizationId).waiting === 1, 10_000, 'the request in A’s line');

    await api(app, b).get('/management/campaigns').expect(200);
    const refused = await api(app, a).get('/management/campaigns').expect(429);
    expect(refused.body.errors).toEqual({ code: 'rate_limited', message: 'too many requests of this organization in progress; retry in a second' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(waitingAnswered).toBe(false);

    end();
    expect((await waiting).status).toBe(200);
    expect(turns.load(a.organizationId)).toEqual({ running: 0, waiting: 0 });
  });
});
