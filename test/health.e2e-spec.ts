import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

/** Rejects when `work` has not settled within `ms`, so a hang fails the test with a message instead of a timeout. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

describe('health', () => {
  describe('with PostgreSQL and Redis up', () => {
    let app: INestApplication;

    beforeAll(async () => {
      app = await createTestApp();
    });
    afterAll(() => app.close());

    it('GET /health/live answers 200 {status: ok}', async () => {
      const res = await request(app.getHttpServer()).get('/health/live');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
    });

    it('GET /health/ready answers 200 with postgres and redis up', async () => {
      const res = await request(app.getHttpServer()).get('/health/ready');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok', checks: { postgres: 'up', redis: 'up' } } });
    });

    it('needs no credentials', async () => {
      const res = await request(app.getHttpServer()).get('/health/ready').set('Authorization', 'Basic bm9ib2R5Om5vdGhpbmc=');
      expect(res.status).toBe(200);
    });
  });

  describe('with Redis unreachable', () => {
    let app: INestApplication | undefined;
    let creation: Promise<INestApplication>;
    // Whatever bypasses the JSON logger while Redis is away: a non-JSON line on the process's stderr in production.
    let consoleError: jest.SpiedFunction<typeof console.error>;

    beforeAll(() => {
      consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      creation = createTestApp({ redisUrl: 'redis://127.0.0.1:1' });
      creation.then((created) => (app = created)).catch(() => undefined);
    });
    afterAll(async () => {
      await creation.catch(() => undefined);
      if (app) await within(app.close(), 10_000, 'closing the app with Redis unreachable');
      consoleError.mockRestore();
    }, 20_000);

    it('the app can still be created', async () => {
      await expect(within(creation, 10_000, 'creating the app with Redis unreachable')).resolves.toBeDefined();
    }, 15_000);

    it('GET /health/live still answers 200', async () => {
      const created = await within(creation, 10_000, 'creating the app with Redis unreachable');
      const res = await request(created.getHttpServer()).get('/health/live');
      expect(res.status).toBe(200);
    }, 15_000);

    it('GET /health/ready answers 503 service_unavailable whose details name redis, not postgres', async () => {
      const created = await within(creation, 10_000, 'creating the app with Redis unreachable');
      const res = await within(Promise.resolve(request(created.getHttpServer()).get('/health/ready')), 10_000, 'GET /health/ready');
      expect({ status: res.status, body: res.body }).toEqual({
        status: 503,
        body: {
          status: 'error',
          errors: { code: 'service_unavailable', message: expect.stringContaining('redis'), details: [{ field: 'redis', message: expect.any(String) }] },
        },
      });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }, 15_000);

    it('writes nothing to the console outside the JSON logger while Redis is unreachable', async () => {
      const created = await within(creation, 10_000, 'creating the app with Redis unreachable');
      await request(created.getHttpServer()).get('/health/ready');
      expect(consoleError.mock.calls.map((args: unknown[]) => args.map(String).join(' '))).toEqual([]);
    }, 15_000);
  });

  /**
   * PostgreSQL taken away while the service runs, as an outage does: the app reaches it through a TCP proxy of the
   * spec's (test/support/tcp-proxy.ts), ready through it first, then the proxy refuses every connection (the server is
   * gone) or leaves every one unanswered (a partition, a frozen host). Either way the readiness check answers within
   * its own bound (2 s per dependency), naming postgres.
   */
  describe.each([
    ['refused (the server is gone)', (proxy: TcpProxy) => proxy.refuse()],
    ['hanging (connections accepted and never answered)', (proxy: TcpProxy) => proxy.hang()],
  ])('with PostgreSQL unreachable: %s', (_label, takeAway) => {
    let proxy: TcpProxy;
    let app: INestApplication;

    beforeAll(async () => {
      const url = new URL(process.env.DATABASE_URL!);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      app = await createTestApp({ databaseUrl: url.toString() });
    });
    afterAll(async () => {
      // Cut first: a statement left hanging holds its pooled connection, which closing the app would wait for.
      await proxy?.close();
      if (app) await within(app.close(), 10_000, 'closing the app with PostgreSQL unreachable');
    }, 20_000);

    it('GET /health/ready answers 503 service_unavailable whose details name postgres, not redis; /health/live 200', async () => {
      const ready = () => within(Promise.resolve(request(app.getHttpServer()).get('/health/ready')), 10_000, 'GET /health/ready');
      // Through the proxy, PostgreSQL answers: ready.
      const before = await ready();
      expect({ status: before.status, body: before.body }).toEqual({ status: 200, body: { status: 'ok', checks: { postgres: 'up', redis: 'up' } } });

      await takeAway(proxy);
      const res = await ready();
      expect({ status: res.status, body: res.body }).toEqual({
        status: 503,
        body: {
          status: 'error',
          errors: { code: 'service_unavailable', message: 'not ready: postgres unreachable', details: [{ field: 'postgres', message: 'unreachable' }] },
        },
      });
      const live = await within(Promise.resolve(request(app.getHttpServer()).get('/health/live')), 10_000, 'GET /health/live');
      expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
    }, 30_000);
  });
});
