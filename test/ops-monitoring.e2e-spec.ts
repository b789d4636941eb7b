import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { alertRules, dashboardExpressions, headingAnchors, metricNames, servedNames, type Expression } from './support/monitoring.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const DASHBOARD = 'ops/grafana/dashboards/campaign-engine.json';
const RULES = 'ops/prometheus/alerts.yml';
/** Series Prometheus writes itself for every target: not on /metrics, and standard to alert on. */
const PROMETHEUS_OWN = new Set(['up']);
const DAY = 86_400_000;
/** A bound on waiting for the worker and the counters' flush (every second), never an expectation of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS * 2 + 15_000);

/** The value of one sample of the Prometheus text with these labels among its own, or 0. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] === name && wanted.every((w) => (match[2] ?? '').split(',').includes(w))) return Number(match[3]);
  }
  return 0;
}

/**
 * What an operations team loads (issue #32): the Grafana dashboard and the Prometheus alert rules of ops/, checked
 * against what a running API serves on /metrics, and the metrics added for them (webhook deliveries, simulation runs,
 * the points expiry backlog, the PostgreSQL pool) counted by the real API and worker.
 */
describe('the dashboard and alert rules of ops/', () => {
  const prefix = ownQueuePrefix('ops-monitoring');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let receiver: Server;
  let received = 0;

  const scrape = async () => (await request(app.getHttpServer()).get('/metrics').expect(200)).text;

  beforeAll(async () => {
    // A database of its own: the expiry backlog is the oldest due credit of the whole database.
    await useOwnDatabase('ops_monitoring');
    app = await createTestApp({ queuePrefix: prefix, webhookAllowPrivateNetworks: true });
    // No `points` queue: no expiry sweeper, so a due credit stays due and the backlog shows it.
    worker = await startTestWorker({ queuePrefix: prefix, webhookAllowPrivateNetworks: true, workerQueues: ['events', 'webhooks', 'simulations'] });
    // A webhook receiver that fails the first delivery attempt (500) and takes every later one.
    receiver = createServer((req, res) => {
      req.resume().on('end', () => {
        received += 1;
        res.writeHead(received === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await deleteQueueKeys(prefix);
  });

  it('uses in the dashboard and the rules only metrics that /metrics serves, in PromQL that parses', async () => {
    const served = servedNames(await scrape());
    const rules = alertRules(RULES);
    const expressions: Expression[] = [...dashboardExpressions(DASHBOARD), ...rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }))];
    expect(expressions.length).toBeGreaterThanOrEqual(30);
    const used = expressions.flatMap(({ where, expr }) => metricNames(expr).map((name) => ({ where, name })));
    expect(new Set(used.map((u) => u.name)).size).toBeGreaterThanOrEqual(12);
    expect(used.filter(({ name }) => !served.has(name) && !PROMETHEUS_OWN.has(name))).toEqual([]);
  });

  it('has a panel for each figure the issue names', () => {
    const used = new Set(dashboardExpressions(DASHBOARD).flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      'http_requests_total', // request rate and errors by route
      'http_request_duration_seconds_bucket', // latency by route
      'events_total', // events accepted / processed / rejected
      'events_processing_lag_seconds_bucket',
      'events_queue_jobs',
      'events_job_duration_seconds_bucket',
      'db_pool_clients', // pool waits
      'webhook_deliveries_total',
      'simulations_total',
      'points_expiry_backlog_seconds',
      'reward_effects_total', // reward effects by outcome, open and dead, and the oldest open one (issue #46)
      'reward_effects_backlog',
      'reward_effects_oldest_open_seconds',
    ]) {
      expect(used).toContain(name);
    }
  });

  it('gives every alert a for:, a severity and a description that says where the operations doc tells what to do', () => {
    const anchors = (file: string) => headingAnchors(file);
    for (const rule of alertRules(RULES)) {
      expect({ alert: rule.alert, for: rule.for }).toEqual({ alert: rule.alert, for: expect.stringMatching(/^\d+[smh]$/) });
      expect(['critical', 'warning', 'info']).toContain(rule.labels?.severity);
      const description = rule.annotations?.description ?? '';
      expect(description).toMatch(/docs\/operations\.md#/);
      // Every link of the description and the runbook lands on a heading of its doc.
      const links = [...`${description} ${rule.annotations?.runbook_url ?? ''}`.matchAll(/(docs\/[\w-]+\.md)#([\w-]+)/g)];
      for (const [, file, anchor] of links) expect({ alert: rule.alert, link: `${file}#${anchor}`, found: anchors(file).has(anchor) }).toEqual(expect.objectContaining({ found: true }));
    }
  });

  it('adds Prometheus and Grafana to docker-compose.yml under the observability profile, with the files of ops/ mounted', () => {
    const compose = parseYaml(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, { profiles?: string[]; volumes?: string[] }> };
    const { prometheus, grafana, ...others } = compose.services;
    expect(prometheus.profiles).toEqual(['observability']);
    expect(grafana.profiles).toEqual(['observability']);
    for (const [name, service] of Object.entries(others)) expect({ name, profiles: service.profiles }).toEqual({ name, profiles: undefined });
    const mounted = [...(prometheus.volumes ?? []), ...(grafana.volumes ?? [])].filter((v) => v.startsWith('./')).map((v) => v.split(':')[0]);
    expect(mounted.sort()).toEqual(['./ops/grafana/dashboards', './ops/grafana/provisioning', './ops/prometheus']);
    const config = parseYaml(readFileSync('ops/prometheus/prometheus.yml', 'utf8')) as { rule_files: string[]; scrape_configs: Array<{ job_name: string }> };
    expect(config.rule_files).toEqual(['alerts.yml']);
    // The job the CampaignEngineApiDown rule names.
    expect(config.scrape_configs.map((c) => c.job_name)).toEqual(['campaign-engine-api']);
    expect(alertRules(RULES).find((r) => r.alert === 'CampaignEngineApiDown')?.expr).toContain('job="campaign-engine-api"');
  });

  it('counts webhook delivery attempts and simulation runs by outcome, and shows the expiry backlog and the pool', async () => {
    const before = await scrape();
    const tenant = await createTenant(app, { points_expire_after_days: 1 });
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Buy anything', event: 'purchase', event_count: 1, points: 10 });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url, event_types: ['points.credited'] } }).expect(201);
    const customer = await createCustomer(app, tenant);
    // Earned two days ago: its credit fell due a day ago, and no sweeper runs here.
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { purchase: 1 }, date: new Date(Date.now() - 2 * DAY).toISOString() }).expect(200);
    const draft = await createCampaign(app, tenant, { status: 'draft' });
    await api(app, tenant).post(`/management/campaigns/${draft.id}/simulations`).send({ simulation: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } }).expect(202);

    const change = (text: string, name: string, outcome: string) => sample(text, name, { outcome }) - sample(before, name, { outcome });
    let after = '';
    await waitFor(
      async () => {
        after = await scrape();
        return change(after, 'webhook_deliveries_total', 'delivered') >= 1 && change(after, 'simulations_total', 'completed') >= 1;
      },
      SETTLE_MS * 2,
      'the delivery to succeed on its second attempt, the simulation to complete, and the counters to be flushed',
      200,
    );
    expect(change(after, 'webhook_deliveries_total', 'retrying')).toBe(1);
    expect(change(after, 'webhook_deliveries_total', 'delivered')).toBe(1);
    expect(change(after, 'webhook_deliveries_total', 'failed')).toBe(0);
    expect(change(after, 'simulations_total', 'completed')).toBe(1);
    expect(change(after, 'simulations_total', 'failed')).toBe(0);

    // Due a day ago, give or take the seconds this test took.
    const backlog = sample(after, 'points_expiry_backlog_seconds');
    expect(backlog).toBeGreaterThan(DAY / 1000 - 60);
    expect(backlog).toBeLessThan(DAY / 1000 + 600);
    expect(sample(after, 'db_pool_clients', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'db_pool_clients', { state: 'waiting' })).toBe(0);
  });
});
