import type { INestApplication, INestApplicationContext, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { Cluster } from 'ioredis';
import pg from 'pg';
import { AppModule } from '../app.module.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { configureApp } from '../common/http/configure-app.js';
import type { AppConfig } from '../config/config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { useLimits } from '../config/limits.js';
import { createRedisClient, type RedisTarget } from '../redis/connection.js';
import { WorkerModule } from '../worker.module.js';

/*
 * What the service's own tests (test/support/app.ts, database.ts, worker.ts) and the extension test kit
 * (./testing.ts, the entry extensions import) share: the API and the worker built for a test with a given config and
 * extra modules, a database of a test's own, and the removal of a Redis prefix's keys. Not part of the extension
 * surface: an extension imports ./testing.js, never this file. It uses @nestjs/testing, a dev dependency: nothing of
 * the service loads it in production.
 */

/**
 * The real API application (same modules, filter, pipes, body parser and Swagger as main.ts) on `config`, with
 * `modules` beside AppModule (as a team adds its extensions), served in-process for supertest. `clock` replaces the
 * system clock; `configure` gets the app and the document it serves before init (the service's tests check every
 * response against it).
 */
export async function buildTestApp(
  config: AppConfig,
  modules: Type[] = [],
  options: { clock?: Clock; configure?: (app: NestExpressApplication, document: OpenAPIObject) => void } = {},
): Promise<INestApplication> {
  useLimits(config.limits);
  let builder = Test.createTestingModule({ imports: [AppModule, ...modules] })
    .overrideProvider(APP_CONFIG)
    .useValue(config);
  if (options.clock) builder = builder.overrideProvider(CLOCK).useValue(options.clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  const document = configureApp(app, config);
  options.configure?.(app, document);
  await app.init();
  return app;
}

/**
 * The real worker (queue processors and sweepers of `config.workerQueues`, as src/worker.ts) in-process on `config`,
 * with `modules` beside its own. Close it with `close()`, which waits for the jobs it is running.
 */
export async function buildTestWorker(config: AppConfig, modules: Type[] = [], clock?: Clock): Promise<INestApplicationContext> {
  useLimits(config.limits);
  let builder = Test.createTestingModule({ imports: [WorkerModule.forQueues(config.workerQueues), ...modules] })
    .overrideProvider(APP_CONFIG)
    .useValue(config);
  if (clock) builder = builder.overrideProvider(CLOCK).useValue(clock);
  const moduleRef = await builder.compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return moduleRef;
}

/** Runs `work` with a client of the server of `databaseUrl`, connected to its `postgres` database. */
async function onServer<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Creates database `name` on the server of `databaseUrl`, a copy of `template` when given (CREATE DATABASE ...
 * TEMPLATE: its schema and rows, without running its migrations again), else empty; answers its URL.
 */
export async function createDatabase(databaseUrl: string, name: string, template?: string): Promise<string> {
  await onServer(databaseUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${quoted(name)}${template ? ` TEMPLATE ${quoted(template)}` : ''}`);
        return;
      } catch (error) {
        // 55006: a connection to the template has not gone yet ("source database is being accessed by other users").
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database `databaseUrl` names, ending the connections still open to it. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  await onServer(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
}

/** Deletes every Redis key matching `match` (a SCAN pattern, such as `<prefix>:*`), on every master of a cluster; answers how many. */
export async function deleteRedisKeys(target: RedisTarget, match: string): Promise<number> {
  const client = createRedisClient(target, { lazyConnect: true, maxRetriesPerRequest: null });
  let deleted = 0;
  try {
    await client.connect();
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        // One key at a time on a cluster node: a DEL of several keys must stay in one slot.
        if (keys.length) deleted += client instanceof Cluster ? (await Promise.all(keys.map((key) => node.del(key)))).reduce((a, b) => a + b, 0) : await node.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
  return deleted;
}
