import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DEFAULT_LIMITS, type Limits } from '../src/config/limits.js';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/** Contract §18 on events and simulations: string lengths, prototype keys as names, V1 instances, simulation ranges. */

type Json = Record<string, unknown>;

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];
const PROTOTYPE_MESSAGE = 'must not be a prototype key (__proto__, constructor, prototype)';

/** JSON text of an object with one member named `name`, in front of `others` (a plain object cannot hold `__proto__`). */
const withMember = (name: string, value: unknown, others: Json = {}) => `{${JSON.stringify(name)}:${JSON.stringify(value)}${Object.keys(others).length ? `,${JSON.stringify(others).slice(1)}` : '}'}`;

function context(limits: Partial<Limits> = {}) {
  const ctx = {} as { app: INestApplication; tenant: TestTenant; customer: { id: string } };
  beforeAll(async () => {
    ctx.app = await createTestApp({ limits: { ...DEFAULT_LIMITS, ...limits } });
    ctx.tenant = await createTenant(ctx.app);
    ctx.customer = await createCustomer(ctx.app, ctx.tenant);
  });
  afterAll(() => ctx.app.close());
  return ctx;
}

function client(ctx: { app: INestApplication; tenant: TestTenant; customer: { id: string } }) {
  /** Sends a JSON text as is: a body written by hand can name a member __proto__. */
  const raw = (path: string, body: string) =>
    request(ctx.app.getHttpServer()).post(path).auth(ctx.tenant.apiKey, ctx.tenant.apiSecret).set('content-type', 'application/json').send(body);
  return {
    v1: (events: Json) => api(ctx.app, ctx.tenant).post(`/users/${ctx.customer.id}/events`).send({ events }),
    v1Raw: (eventsJson: string) => raw(`/priv/v1/apps/${ctx.tenant.apiKey}/users/${ctx.customer.id}/events`, `{"events":${eventsJson}}`),
    v2: (events: Json[]) => request(ctx.app.getHttpServer()).post(`/priv/v2/apps/${ctx.tenant.apiKey}/events`).auth(ctx.tenant.apiKey, ctx.tenant.apiSecret).send({ events }),
    v2Raw: (eventsJson: string) => raw(`/priv/v2/apps/${ctx.tenant.apiKey}/events`, `{"events":${eventsJson}}`),
    simulate: (campaignId: number, simulation: Json) => api(ctx.app, ctx.tenant).post(`/management/campaigns/${campaignId}/simulations`).send({ simulation }),
    cancel: (id: number) => api(ctx.app, ctx.tenant).delete(`/management/simulations/${id}`),
  };
}

/** A 400 validation whose message names the member and says what is wrong with it. */
function expectRefused(res: request.Response, member: string, message: string): void {
  expectError(res, 400, 'validation');
  expect(res.body.errors.message).toContain(`${member} ${message}`);
}

describe('events limits (the defaults)', () => {
  const ctx = context();
  const c = client(ctx);
  const at = 'x'.repeat(1024);
  const over = `${at}y`;
  const tooLong = 'must be at most 1024 characters (LIMIT_ATTRIBUTE_LENGTH)';

  describe('a string in event attributes or context: at most 1,024 characters', () => {
    it('V1 takes attributes and context strings of 1,024 characters, and answers 400 validation naming the member of 1,025', async () => {
      expect((await c.v1({ purchase: { store_id: at, context: { channel: at } } })).status).toBe(200);
      expectRefused(await c.v1({ purchase: { store_id: over } }), 'events.purchase.store_id', tooLong);
      expectRefused(await c.v1({ purchase: [{ store_id: 's-1' }, { context: { channel: over } }] }), 'events.purchase[1].context.channel', tooLong);
    });

    it('V1 answers 400 validation for a string of 100 KB', async () => {
      expectRefused(await c.v1({ purchase: { note: 'n'.repeat(100_000) } }), 'events.purchase.note', tooLong);
    });

    it('V2 takes context strings of 1,024 characters, and answers 400 validation naming each member over it, a 100 KB one included', async () => {
      expect((await c.v2([{ name: 'purchase', user_id: ctx.customer.id, context: { store_id: at } }])).status).toBe(200);
      const res = await c.v2([
        { name: 'purchase', user_id: ctx.customer.id, context: { store_id: over } },
        { name: 'purchase', user_id: ctx.customer.id, context: { store_id: 's-1' } },
        { name: 'purchase', user_id: ctx.customer.id, context: { note: 'n'.repeat(100_000) } },
      ]);
      expect(expectError(res, 400, 'validation')).toEqual(['events[0].context.store_id', 'events[2].context.note']);
      expect(res.body.errors.details[0].message).toBe(tooLong);
    });
  });

  describe('prototype keys as names', () => {
    /** Names that only resemble prototype keys, which both versions take. */
    const lookalikes = async () => {
      expect((await c.v1({ Constructor: { proto: 'x', context: { prototypes: 'y' } } })).status).toBe(200);
      expect((await c.v2([{ name: 'Constructor', user_id: ctx.customer.id, context: { proto: 'x' } }])).status).toBe(200);
    };

    it.each(PROTOTYPE_KEYS)('V1 answers 400 validation for %s as an event name, an attribute name and a context member name', async (key) => {
      const refused = `is refused: a name ${PROTOTYPE_MESSAGE}`;
      expect(expectError(await c.v1Raw(withMember(key, 1)), 400, 'validation')).toEqual([`events.${key}`]);
      expectRefused(await c.v1Raw(withMember(key, 1, { visit: 1 })), `events.${key}`, refused);
      expectRefused(await c.v1Raw(`{"purchase":${withMember(key, 'x', { store_id: 's-1' })}}`), `events.purchase.${key}`, refused);
      expectRefused(await c.v1Raw(`{"purchase":[{},{"context":${withMember(key, 'x')}}]}`), `events.purchase[1].context.${key}`, refused);
      await lookalikes();
    });

    it.each(PROTOTYPE_KEYS)('V2 answers 400 validation for %s as an event name and a context member name', async (key) => {
      const user = JSON.stringify(ctx.customer.id);
      const res = await c.v2Raw(`[{"name":${JSON.stringify(key)},"user_id":${user}},{"name":"purchase","user_id":${user},"context":${withMember(key, 'x', { a: 1 })}}]`);
      expect(expectError(res, 400, 'validation')).toEqual(['events[0].name', `events[1].context.${key}`]);
      expect(res.body.errors.details.map((d: { message: string }) => d.message)).toEqual([PROTOTYPE_MESSAGE, `is refused: a member name ${PROTOTYPE_MESSAGE}`]);
      await lookalikes();
    });
  });

  describe('event instances per V1 request: 100', () => {
    it('takes 100 instances and answers 400 validation for 101', async () => {
      expect((await c.v1({ visit: Array.from({ length: 100 }, () => ({})) })).status).toBe(200);
      const res = await c.v1({ visit: Array.from({ length: 100 }, () => ({})), open: 1 });
      expectError(res, 400, 'validation');
      expect(res.body.errors.message).toContain('at most 100 event instances per request (LIMIT_V1_INSTANCES)');
    });
  });

  describe('simulation range: 3 years', () => {
    it('answers 400 validation on simulation.to for a range of 1000-01-01 to 9999-12-31, naming the limit, and queues one of exactly 3 years', async () => {
      const campaign = await createCampaign(ctx.app, ctx.tenant, { status: 'draft' });
      const res = await c.simulate(campaign.id, { from: '1000-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' });
      expect(expectError(res, 400, 'validation')).toEqual(['simulation.to']);
      expect(res.body.errors.message).toBe('simulation.to must be at most 3 years after simulation.from (LIMIT_SIMULATION_YEARS)');
      expect(expectError(await c.simulate(campaign.id, { from: '2026-01-01T00:00:00Z', to: '2029-01-01T00:00:01Z' }), 400, 'validation')).toEqual(['simulation.to']);
      const queued = await c.simulate(campaign.id, { from: '2026-01-01T00:00:00Z', to: '2029-01-01T00:00:00Z' });
      expect(queued.status).toBe(202);
      expect(queued.body.simulation).toEqual(expect.objectContaining({ from: '2026-01-01T00:00:00.000Z', to: '2029-01-01T00:00:00.000Z', status: 'queued' }));
      await c.cancel(queued.body.simulation.id).expect(200);
    });
  });
});

describe('events limits (a deployment with small limits)', () => {
  const ctx = context({ attributeLength: 5, v1Instances: 2, simulationYears: 1 });
  const c = client(ctx);

  it('reads LIMIT_ATTRIBUTE_LENGTH on V1 and V2', async () => {
    expect((await c.v1({ purchase: { store_id: 'abcde' } })).status).toBe(200);
    expectRefused(await c.v1({ purchase: { store_id: 'abcdef' } }), 'events.purchase.store_id', 'must be at most 5 characters (LIMIT_ATTRIBUTE_LENGTH)');
    expect((await c.v2([{ name: 'purchase', user_id: ctx.customer.id, context: { store_id: 'abcde' } }])).status).toBe(200);
    expect(expectError(await c.v2([{ name: 'purchase', user_id: ctx.customer.id, context: { store_id: 'abcdef' } }]), 400, 'validation')).toEqual(['events[0].context.store_id']);
  });

  it('reads LIMIT_V1_INSTANCES', async () => {
    expect((await c.v1({ visit: [{}, {}] })).status).toBe(200);
    const res = await c.v1({ visit: [{}, {}], open: 1 });
    expectError(res, 400, 'validation');
    expect(res.body.errors.message).toContain('at most 2 event instances per request (LIMIT_V1_INSTANCES)');
  });

  it('reads LIMIT_SIMULATION_YEARS', async () => {
    const campaign = await createCampaign(ctx.app, ctx.tenant, { status: 'draft' });
    const res = await c.simulate(campaign.id, { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:01Z' });
    expect(expectError(res, 400, 'validation')).toEqual(['simulation.to']);
    expect(res.body.errors.message).toBe('simulation.to must be at most 1 year after simulation.from (LIMIT_SIMULATION_YEARS)');
    const queued = await c.simulate(campaign.id, { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' });
    expect(queued.status).toBe(202);
    await c.cancel(queued.body.simulation.id).expect(200);
  });
});
