import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { behaviorBody } from '../factories/behavior.factory.js';
import { createTestApp } from '../support/app.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix, waitFor } from '../support/worker.js';
import { basic, fillPath, routeList, routeName, send } from './routes.js';
import { buildWorld, pathValues, World } from './world.js';

jest.setTimeout(90_000);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DAY = 86_400_000;

interface Child {
  process: ChildProcess;
  output: string;
}

/** A built process (dist/src/main.js or worker.js) logging at trace, the most it can say, with stdout and stderr kept. */
function start(script: string, env: Record<string, string>): Child {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'trace', ...env };
  delete childEnv.NODE_OPTIONS; // jest's own flags are not the service's
  const proc = spawn(process.execPath, [`dist/src/${script}`], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = { process: proc, output: '' };
  for (const stream of [proc.stdout!, proc.stderr!]) stream.setEncoding('utf8').on('data', (chunk: string) => (child.output += chunk));
  return child;
}

async function stop(child: Child | undefined): Promise<void> {
  if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('secrets never reach the logs', () => {
  const prefix = ownQueuePrefix('security-secrets');
  let api: Child | undefined;
  let worker: Child | undefined;
  let receiver: Server;
  const received: Array<{ path: string; signature: string }> = [];
  /** Every secret this test handles, by what it is. */
  const secrets: Record<string, string> = { 'admin token': TEST_ADMIN_TOKEN };

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      req.resume().on('end', () => {
        received.push({ path: req.url ?? '', signature: String(req.headers['x-webhook-signature']) });
        res.statusCode = req.url === '/fail' ? 500 : 200;
        res.end();
      });
    });
    const receiverPort = await listen(receiver);
    const probe = createServer();
    const port = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));

    // A queue prefix of its own, and sweepers that only take rows older than a day: this worker touches nothing
    // that other specs of the run left pending in the shared database.
    const env = { PORT: String(port), QUEUE_PREFIX: prefix, SWEEP_AFTER_SECONDS: '86400' };
    api = start('main.js', env);
    worker = start('worker.js', env);
    await waitFor(() => api!.output.includes('"api listening"') && worker!.output.includes('"worker ready"'), 30_000, 'the API and the worker to start');

    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, path: string, authorization?: string, body?: unknown) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const admin = `Bearer ${TEST_ADMIN_TOKEN}`;

    const org = await call('POST', '/admin/v1/organizations', admin, { organization: { name: 'Secrets' }, application: { name: 'Web' } });
    expect(org.status).toBe(201);
    const key: string = org.body.api_key;
    secrets['api secret'] = org.body.api_secret;
    const second = await call('POST', `/admin/v1/organizations/${org.body.organization.id}/applications`, admin, { application: { name: 'POS' } });
    secrets['second api secret'] = second.body.api_secret;
    const auth = basic(key, secrets['api secret']);
    secrets['Basic credentials'] = auth.slice('Basic '.length);
    secrets['wrong secret'] = `${secrets['api secret'].slice(0, -1)}!`;
    secrets['wrong admin token'] = `${TEST_ADMIN_TOKEN.slice(0, -1)}!`;
    const priv = (method: string, path: string, body?: unknown, authorization = auth) => call(method, `/priv/v1/apps/${key}${path}`, authorization, body);

    // Refused credentials, each of which could carry a secret or a near miss of one.
    expect((await priv('GET', '/management/campaigns', undefined, basic(key, secrets['wrong secret']))).status).toBe(401);
    expect((await priv('GET', '/management/campaigns', undefined, basic(key, secrets['second api secret']))).status).toBe(401);
    expect((await priv('GET', '/management/campaigns', undefined, `Bearer ${secrets['api secret']}`)).status).toBe(401);
    expect((await call('POST', '/admin/v1/organizations', `Bearer ${secrets['wrong admin token']}`, {})).status).toBe(401);

    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const campaign = await priv('POST', '/management/campaigns', { campaign: { name: 'Visits', status: 'live', ...window } });
    await priv('POST', `/management/campaigns/${campaign.body.campaign.id}/behaviors/_batch`, { behaviors: [behaviorBody({ name: 'Visit', event: 'visit', points: 5 })] });
    const webhookIds: number[] = [];
    for (const [name, path] of [
      ['webhook secret', '/hook'],
      ['failing webhook secret', '/fail'],
    ]) {
      const webhook = await priv('POST', '/management/webhooks', { webhook: { url: `http://127.0.0.1:${receiverPort}${path}`, event_types: ['points.credited'] } });
      expect(webhook.status).toBe(201);
      secrets[name] = webhook.body.webhook.secret;
      webhookIds.push(webhook.body.webhook.id);
    }
    const user = await priv('POST', '/users', { user: { external_id: 'secret-keeper' } });
    expect((await priv('POST', `/users/${user.body.user.id}/events`, { events: { visit: 1 } })).status).toBe(200);
    expect((await call('POST', `/priv/v2/apps/${key}/events`, auth, { events: [{ name: 'visit', user_id: user.body.user.id }] })).status).toBe(200);
    await priv('GET', '/management/webhooks');
    await priv('GET', '/management/audit_log');
    expect((await call('DELETE', `/admin/v1/api_keys/${second.body.api_key}`, admin)).status).toBe(200);

    // Both deliveries made (one answered 500, so it logs a failure too), and the API's last request line written.
    await waitFor(() => received.some((r) => r.path === '/hook') && received.some((r) => r.path === '/fail'), 30_000, 'both webhook deliveries');
    await waitFor(() => (worker!.output.match(/"webhook delivery"/g) ?? []).length >= 2, 30_000, 'the delivery log lines');
    // Deleting the failing webhook cancels its retry: nothing of this test stays open in the shared database.
    expect((await priv('DELETE', `/management/webhooks/${webhookIds[1]}`)).status).toBe(200);
    await waitFor(() => api!.output.includes(`"/priv/v1/apps/${key}/management/webhooks/${webhookIds[1]}"`), 10_000, 'the last request log line');
    for (const [i, r] of received.entries()) secrets[`signature ${i}`] = r.signature;
  });

  afterAll(async () => {
    await Promise.all([stop(api), stop(worker)]);
    await new Promise((resolve) => receiver?.close(resolve));
    await deleteQueueKeys(prefix);
  });

  it('captured the log lines (JSON, one per request, refusals and deliveries included)', () => {
    const lines = `${api!.output}\n${worker!.output}`.split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((r) => r.msg === 'request' && r.status === 401).length).toBeGreaterThanOrEqual(4);
    expect(records.filter((r) => r.msg === 'request' && r.status === 201).length).toBeGreaterThanOrEqual(5);
    const outcomes = records.filter((r) => r.msg === 'webhook delivery').map((r) => r.outcome);
    expect(outcomes).toContain('delivered');
    expect(outcomes.some((outcome) => outcome === 'retrying' || outcome === 'failed')).toBe(true);
  });

  it('holds no api secret, webhook secret, admin token, Basic credentials or signature, nor a near miss of one', () => {
    // Eight secrets and a signature per delivery attempt (two at least; a retry of the failing one may add more).
    expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(10);
    const leaks = Object.entries(secrets).flatMap(([what, value]) => [
      ...(api!.output.includes(value) ? [`${what} in the API log`] : []),
      ...(worker!.output.includes(value) ? [`${what} in the worker log`] : []),
    ]);
    expect(leaks).toEqual([]);
  });
});

describe('secrets never come back in answers', () => {
  let app: INestApplication;
  let storageDir: string;
  let world: World;

  beforeAll(async () => {
    storageDir = await mkdtemp(join(tmpdir(), 'security-secrets-'));
    app = await createTestApp({ storageDir });
    world = await buildWorld(app, storageDir);
  });
  afterAll(async () => {
    await app.close();
    await rm(storageDir, { recursive: true, force: true });
  });

  it('answers no GET route, list or single object, with the api secret or the webhook secret', async () => {
    const routes = (await routeList(app)).filter((route) => route.method === 'get' && route.path.startsWith('/priv/'));
    expect(routes.length).toBeGreaterThanOrEqual(25);
    const failures: string[] = [];
    for (const route of routes) {
      const res = await send(app, 'get', fillPath(route, { ...pathValues(world), api_key: world.tenant.apiKey })).set(
        'Authorization',
        basic(world.tenant.apiKey, world.tenant.apiSecret),
      );
      const answer = `${res.text}\n${JSON.stringify(res.headers)}`;
      if (res.status !== 200) failures.push(`${routeName(route)} → ${res.status}`);
      for (const [what, secret] of [
        ['api secret', world.tenant.apiSecret],
        ['webhook secret', world.webhook.secret],
      ]) {
        if (answer.includes(secret)) failures.push(`${routeName(route)} answers the ${what}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
