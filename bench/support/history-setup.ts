/**
 * A history database ready to measure: migrated, its organization, api key, campaign and behaviors created through
 * the real API, its bulk rows generated (history-data.ts), its API process started. A kept database (the large one
 * with BENCH_KEEP_HISTORY=1) is reused when its comment says it was built by this generator with the same sizes and
 * migrations and its row counts are the expected ones, after the rows a previous run added are taken out again.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migrations } from '../../migrations/index.js';
import {
  buildHistory,
  countRows,
  expectedRows,
  GENERATOR_VERSION,
  HISTORY_BEHAVIORS,
  nextIds,
  restoreHistory,
  type BehaviorKey,
  type BuildOptions,
  type BuildStep,
  type HistoryPlan,
  type HistorySizes,
  type HistoryTenant,
} from './history-data.js';
import { databaseComment, databaseExists, databaseUrl, dropDatabase, lastMigration, migrate, setDatabaseComment, startApi, type HistoryApi } from './history-server.js';
import { bootstrap } from './server.js';

export interface HistoryDatabase {
  name: string;
  url: string;
  plan: HistoryPlan;
  api: HistoryApi;
  pool: pg.Pool;
  reused: boolean;
  /** When it was built, how long it took and its steps (of this run, or as recorded when it was built). */
  builtAt: string;
  buildSeconds: number;
  steps: BuildStep[];
  build: { indexes: string; jobs: number; loadAverage: number[] };
  counts: Record<string, number>;
}

interface Recorded {
  bench: 'history';
  version: number;
  migration: string;
  plan: HistoryPlan;
  builtAt: string;
  buildSeconds: number;
  steps: BuildStep[];
  build: HistoryDatabase['build'];
}

export const LATEST_MIGRATION = new migrations[migrations.length - 1]().name;

/** The organization, its key, the live campaign (started before the 12 months) and the five behaviors, through the API. */
async function createTenant(api: HistoryApi, db: pg.Pool, t0Ms: number): Promise<HistoryTenant> {
  const t = await bootstrap(api.url, 'History');
  const headers = { authorization: t.auth, 'content-type': 'application/json' };
  const base = `${api.url}/priv/v1/apps/${t.key}/management/campaigns`;
  const res = await fetch(base, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      campaign: {
        name: 'Everyday loyalty',
        permalink: 'everyday-loyalty',
        status: 'live',
        starts_at: new Date(t0Ms - 30 * 86_400_000).toISOString(),
        ends_at: new Date(t0Ms + 4 * 365 * 86_400_000).toISOString(),
      },
    }),
  });
  if (res.status !== 201) throw new Error(`campaign not created: ${res.status} ${await res.text()}`);
  const campaignId = ((await res.json()) as { campaign: { id: number } }).campaign.id;
  const behaviors = HISTORY_BEHAVIORS.map(({ key: _key, ...behavior }) => behavior);
  const batch = await fetch(`${base}/${campaignId}/behaviors/_batch`, { method: 'POST', headers, body: JSON.stringify({ behaviors }) });
  if (batch.status !== 201) throw new Error(`behaviors not created: ${batch.status} ${await batch.text()}`);
  const rows = (
    await db.query(`SELECT id, name, (goal_groups->0->'goals'->0->>'id')::int AS goal_id FROM behaviors WHERE organization_id = $1 AND campaign_id = $2`, [t.organizationId, campaignId])
  ).rows as Array<{ id: number; name: string; goal_id: number }>;
  const behaviorIds = {} as Record<BehaviorKey, number>;
  const goalIds = {} as Record<BehaviorKey, number>;
  for (const b of HISTORY_BEHAVIORS) {
    const row = rows.find((r) => r.name === b.name);
    if (!row) throw new Error(`behavior ${b.name} not found after creation`);
    behaviorIds[b.key] = row.id;
    goalIds[b.key] = row.goal_id;
  }
  const apiKeyId = (await db.query(`SELECT id FROM api_keys WHERE key = $1`, [t.key])).rows[0].id as number;
  const rootDivisionId = (await db.query(`SELECT id FROM divisions WHERE organization_id = $1 AND parent_id IS NULL`, [t.organizationId])).rows[0].id as number;
  return { organizationId: t.organizationId, apiKeyId, key: t.key, secret: t.secret, campaignId, rootDivisionId, behaviorIds, goalIds };
}

function sameCounts(counts: Record<string, number>, sizes: HistorySizes): string | null {
  const expected = expectedRows(sizes);
  const wrong = Object.entries(expected).filter(([t, n]) => counts[t] !== n);
  return wrong.length ? wrong.map(([t, n]) => `${t} ${counts[t]} (expected ${n})`).join(', ') : null;
}

export interface PrepareOptions {
  sizes: HistorySizes;
  port: number;
  /** Reuse the database if it holds what this build would write (and record the build for later runs). */
  reusable: boolean;
  t0Ms: number;
  spanMs: number;
  build: Omit<BuildOptions, 'log'>;
  log: (line: string) => void;
}

/** The database `name`, built (or reused) and with its API started on `port`. */
export async function prepareHistory(name: string, options: PrepareOptions): Promise<HistoryDatabase> {
  const url = databaseUrl(name);
  const { sizes, log } = options;
  if (options.reusable && (await databaseExists(name))) {
    const recorded = parseRecorded(await databaseComment(name));
    const migration = await lastMigration(name).catch(() => null);
    const reason = !recorded
      ? 'no record of its build'
      : recorded.version !== GENERATOR_VERSION
        ? `built by generator version ${recorded.version}`
        : recorded.plan.sizes.customers !== sizes.customers || recorded.plan.sizes.events !== sizes.events
          ? `built with ${recorded.plan.sizes.customers} customers and ${recorded.plan.sizes.events} events`
          : recorded.migration !== LATEST_MIGRATION || migration !== LATEST_MIGRATION
            ? `built at migration ${recorded.migration}, now ${LATEST_MIGRATION}`
            : null;
    if (!reason && recorded) {
      const api = await startApi(name, options.port);
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      const restored = await restoreHistory(url, recorded.plan);
      if (restored) log(`${name}: ${restored} customers touched by an earlier run put back as built`);
      const counts = await countRows(pool);
      const wrong = sameCounts(counts, sizes);
      if (!wrong) {
        log(`${name}: kept database reused (built ${recorded.builtAt} in ${recorded.buildSeconds.toFixed(0)} s)`);
        return { name, url, plan: recorded.plan, api, pool, reused: true, builtAt: recorded.builtAt, buildSeconds: recorded.buildSeconds, steps: recorded.steps, build: recorded.build, counts };
      }
      log(`${name}: rebuilt, its row counts are not the expected ones: ${wrong}`);
      await pool.end();
      await api.stop();
    } else {
      log(`${name}: rebuilt (${reason})`);
    }
  }
  await dropDatabase(name);
  const started = performance.now();
  migrate(name);
  const api = await startApi(name, options.port);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  try {
    const tenant = await createTenant(api, pool, options.t0Ms);
    const plan: HistoryPlan = { sizes, tenant, t0Ms: options.t0Ms, spanMs: options.spanMs, ...(await nextIds(pool)) };
    const buildSteps = await buildHistory(url, plan, { ...options.build, log });
    const buildSeconds = (performance.now() - started) / 1000;
    const steps = [{ step: 'database, migrations, API and tenant', seconds: buildSeconds - buildSteps.reduce((s, x) => s + x.seconds, 0) }, ...buildSteps];
    const counts = await countRows(pool);
    const wrong = sameCounts(counts, sizes);
    if (wrong) throw new Error(`${name}: the build wrote ${wrong}`);
    const builtAt = new Date().toISOString();
    const build = { ...options.build, loadAverage: loadAverage() };
    if (options.reusable) {
      const record: Recorded = { bench: 'history', version: GENERATOR_VERSION, migration: LATEST_MIGRATION, plan, builtAt, buildSeconds, steps, build };
      await setDatabaseComment(name, JSON.stringify(record));
    }
    return { name, url, plan, api, pool, reused: false, builtAt, buildSeconds, steps, build, counts };
  } catch (error) {
    await pool.end();
    await api.stop();
    throw error;
  }
}

function parseRecorded(comment: string | null): Recorded | null {
  try {
    const r = JSON.parse(comment ?? '') as Recorded;
    return r.bench === 'history' ? r : null;
  } catch {
    return null;
  }
}

/** The 1, 5 and 15 minute load averages. */
export function loadAverage(): number[] {
  return os.loadavg().map((l) => Math.round(l * 100) / 100);
}
