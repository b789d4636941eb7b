import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';

describe('queue dashboard (bull-board at /admin/queues)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('answers 401 in the error envelope, asking the browser for credentials, without ADMIN_TOKEN', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-0123456789', `Basic ${Buffer.from('admin:wrong').toString('base64')}`]) {
      const req = request(app.getHttpServer()).get('/admin/queues/');
      const res = await (auth ? req.set('Authorization', auth) : req);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="queues"');
      expect(res.body).toEqual({ status: 'error', errors: { code: 'unauthorized', message: 'unauthorized' } });
    }
  });

  it('serves the dashboard with the token as Bearer or as the Basic password, and lists the events, webhooks, audience-jobs, simulations and reward-effects queues', async () => {
    const page = await request(app.getHttpServer()).get('/admin/queues/').auth('admin', TEST_ADMIN_TOKEN);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const api = await request(app.getHttpServer()).get('/admin/queues/api/queues').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
    expect(api.status).toBe(200);
    expect(api.body.queues.map((q: { name: string }) => q.name)).toEqual(['events', 'webhooks', 'audience-jobs', 'simulations', 'reward-effects']);
  });

  it('is closed when ADMIN_TOKEN is not set', async () => {
    const closed = await createTestApp({ adminToken: null });
    try {
      const res = await request(closed.getHttpServer()).get('/admin/queues/').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      expect(res.status).toBe(401);
      expect(res.body.errors.message).toMatch(/ADMIN_TOKEN/);
    } finally {
      await closed.close();
    }
  });
});
