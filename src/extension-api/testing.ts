/**
 * The extension test kit: what a team's e2e spec imports to run its extension in the real API (and, if it asks, a
 * worker) on a database and a Redis key prefix of the spec's own (docs/extending.md, "Test it"). A second entry beside
 * ./index.js, so that the production entry pulls no test tool: it needs the dev dependencies @nestjs/testing and
 * supertest, as the test run has them.
 *
 * ```ts
 * import { createExtensionTestApp, type ExtensionTestKit } from '../src/extension-api/testing.js';
 * const kit = await createExtensionTestApp({ modules: [DoublePointsModule], migrations, worker: ['events'] });
 * const tenant = await kit.createTenant();
 * await kit.api(tenant).post('/management/campaigns').send({ campaign: { ... } }).expect(201);
 * await kit.close();
 * ```
 */
import { randomBytes } from 'node:crypto';
import type { INestApplication, INestApplicationContext, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import type { Clock } from '../common/clock.js';
import { loadConfig, type AppConfig, type WorkerQueue } from '../config/config.js';
import type { MigrationClass } from '../database/data-source.js';
import { runMigrations } from '../database/preflight.js';
import { buildTestApp, buildTestWorker, createDatabase, deleteRedisKeys, dropDatabase } from './testing-core.js';

export interface ExtensionTestOptions {
  /** The extension's Nest modules, loaded beside the application's (and the worker's), as EXTENSIONS loads them. */
  modules?: Type[];
  /** The extension's TypeORM migrations (the `migrations` its file exports), run on the kit's database after the service's. */
  migrations?: MigrationClass[];
  /** A worker in-process too, with the modules loaded: `true` for every queue of WORKER_QUEUES, or the queues it takes. */
  worker?: boolean | readonly WorkerQueue[];
  /**
   * Settings over those of the environment (the service's config, as loadConfig reads it). `databaseUrl` names the
   * server the kit's database is created on and the start of its name, `queuePrefix` the start of the kit's prefix;
   * without `adminToken` the kit sets one of its own.
   */
  config?: Partial<AppConfig>;
  /** The time the API and the worker see (a SettableClock from src/common/clock.ts), instead of the system's. */
  clock?: Clock;
  /** Called with the application and the OpenAPI document it serves, before init (to add middleware, to check responses against the document). */
  configure?: (app: NestExpressApplication, document: OpenAPIObject) => void;
}

/** An organization made through the admin API, and the credentials of its application. */
export interface TestTenant {
  organizationId: number;
  rootDivisionId: number;
  apiKey: string;
  apiSecret: string;
}

/** Requests to the kit's API under /priv/v1/apps/:api_key with a tenant's Basic credentials (supertest: chain `.send`, `.expect`). */
export interface TenantRequests {
  get(path: string): request.Test;
  post(path: string): request.Test;
  put(path: string): request.Test;
  delete(path: string): request.Test;
}

export interface ExtensionTestKit {
  /** The API, in-process (`request(kit.app.getHttpServer())` for a route of your own), with the modules loaded. */
  readonly app: INestApplication;
  /** The worker, when `worker` was asked for. */
  readonly worker: INestApplicationContext | undefined;
  /** The kit's own database: the service's migrations and the extension's applied. */
  readonly databaseUrl: string;
  /** The kit's own Redis key prefix (QUEUE_PREFIX): its queues, counters and limits. */
  readonly queuePrefix: string;
  /** The names of the extension's migrations the kit ran, in the order run. */
  readonly migrations: string[];
  /** An organization with one application, made through the admin API (`organization`: members of its body, such as `time_zone`). */
  createTenant(organization?: Record<string, unknown>): Promise<TestTenant>;
  /** Requests under /priv/v1/apps/:api_key with the tenant's credentials, such as `kit.api(tenant).post('/users/c-1/events')`. */
  api(tenant: TestTenant): TenantRequests;
  /**
   * Closes the worker and the API, then drops the database (ending the connections still open to it: close a client of
   * your own first) and deletes the prefix's Redis keys. Call it in afterAll; a second call waits for the first.
   */
  close(): Promise<void>;
}

/**
 * The real API, and a worker if asked, with the extension's modules loaded, on a database of their own (created from
 * the server of DATABASE_URL, the service's migrations and the extension's applied) and a Redis key prefix of their
 * own (QUEUE_PREFIX plus a suffix). Nothing is shared with other specs, or with another kit: `close()` removes both.
 * In the service's test run (jest's global setup), the database is a copy of the run's migrated template
 * (TEST_TEMPLATE_DATABASE), and only the extension's migrations run.
 */
export async function createExtensionTestApp(options: ExtensionTestOptions = {}): Promise<ExtensionTestKit> {
  const base = { ...loadConfig(process.env), ...options.config };
  const suffix = randomBytes(4).toString('hex');
  const baseName = decodeURIComponent(new URL(base.databaseUrl).pathname.slice(1)) || 'campaign_engine';
  const template = process.env.TEST_TEMPLATE_DATABASE || undefined;
  const databaseUrl = await createDatabase(base.databaseUrl, `${baseName.slice(0, 50)}_kit_${suffix}`, template);
  const config: AppConfig = {
    ...base,
    databaseUrl,
    queuePrefix: `${base.queuePrefix}-kit-${suffix}`,
    adminToken: base.adminToken ?? `kit-admin-${randomBytes(16).toString('hex')}`,
  };
  let app: INestApplication | undefined;
  let worker: INestApplicationContext | undefined;
  const release = async () => {
    try {
      await worker?.close();
    } finally {
      try {
        await app?.close();
      } finally {
        await dropDatabase(databaseUrl);
        await deleteRedisKeys(config, `${config.queuePrefix}:*`);
      }
    }
  };

  let migrations: string[];
  try {
    if (!template) await runMigrations(databaseUrl);
    migrations = options.migrations?.length ? await runMigrations(databaseUrl, options.migrations) : [];
    const modules = options.modules ?? [];
    app = await buildTestApp(config, modules, { clock: options.clock, configure: options.configure });
    if (options.worker) {
      const workerQueues = options.worker === true ? config.workerQueues : [...options.worker];
      worker = await buildTestWorker({ ...config, workerQueues }, modules, options.clock);
    }
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }

  const server = app.getHttpServer();
  let tenants = 0;
  let closing: Promise<void> | undefined;
  return {
    app,
    worker,
    databaseUrl,
    queuePrefix: config.queuePrefix,
    migrations,
    async createTenant(organization = {}) {
      tenants += 1;
      const res = await request(server)
        .post('/admin/v1/organizations')
        .set('Authorization', `Bearer ${config.adminToken}`)
        .send({ organization: { name: `Org ${tenants}`, ...organization }, application: { name: 'Web' } })
        .expect(201);
      return { organizationId: res.body.organization.id, rootDivisionId: res.body.organization.root_division_id, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
    },
    api(tenant) {
      const path = (p: string) => `/priv/v1/apps/${tenant.apiKey}${p}`;
      return {
        get: (p) => request(server).get(path(p)).auth(tenant.apiKey, tenant.apiSecret),
        post: (p) => request(server).post(path(p)).auth(tenant.apiKey, tenant.apiSecret),
        put: (p) => request(server).put(path(p)).auth(tenant.apiKey, tenant.apiSecret),
        delete: (p) => request(server).delete(path(p)).auth(tenant.apiKey, tenant.apiSecret),
      };
    },
    close() {
      closing ??= release();
      return closing;
    },
  };
}
