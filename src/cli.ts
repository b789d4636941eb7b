import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AppError } from './common/errors/app-error.js';
import { toAppError } from './common/validation/validation.pipe.js';
import { configFromEnv } from './config/config.js';
import { createDataSource } from './database/data-source.js';
import { ensureDatabase, runMigrations } from './database/preflight.js';
import { CreateOrganizationBody, TenancyService } from './modules/tenancy/index.js';
import { runProcess } from './process.js';
import { queueConnection } from './queues/queue-connection.js';
import { EventsJob, QueueName } from './queues/queue-names.js';
import { enqueueEvents, EventLogMaintenance, listRejectedEvents, MAINTENANCE_LOCK, type QueuedEvent } from './modules/events/index.js';
import { occurredKey } from './modules/evaluation/index.js';
import { createLogger, LOGGER } from './common/logging/logger.js';
import { checkExtensionsFound, extensionMigrations, ExtensionRegistry, loadExtensions, withExtensions } from './modules/registry/index.js';
import { RewardEffectsRepository } from './modules/reward-effects/index.js';
import { enqueueEffects } from './queues/enqueue-effects.js';
import { removeFailedJobs } from './queues/failed-jobs.js';
import { systemClock } from './common/clock.js';
import { AnalyticsBackfill, AnalyticsBackfillRepository } from './modules/analytics/index.js';
import { LedgerBackfill, LedgerBackfillRepository } from './modules/points/index.js';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { CoreModule } from './core.module.js';
import { upgradeStaleArguments } from './modules/extensions/index.js';

const USAGE = `usage:
  npm run cli -- migrate
  npm run cli -- bootstrap --org NAME --app NAME [--multi-org] [--time-zone ZONE]
  npm run cli -- events:failed             list the events whose job failed every attempt
  npm run cli -- events:replay --failed    set them pending again and queue them
  npm run cli -- events:rejected [--org ID] [--limit N] [--page N]
                                           list the events the workers rejected (customer_not_found), newest first
  npm run cli -- events:maintain           what the workers do each minute to the event log's monthly partitions,
                                           now: add the months ahead, drop those past EVENT_RETENTION_DAYS
  npm run cli -- effects:dead              list the rewards' after-commit effects that failed every attempt
  npm run cli -- effects:replay --dead     set them open again and queue them (a worker with their extension runs them)
  npm run cli -- extensions:upgrade [--dry-run]
                                           with the EXTENSIONS the API loads: upgrade the stored arguments their classes
                                           refuse through each extension's upgrade(), and list what stays stale
  npm run cli -- ledger:backfill [--no-pause]
  npm run cli -- analytics:backfill [--no-pause]
                                           fill occurred_at and reversed_at of the ledger's credits written before
                                           they existed (what each worker does once at start), paced unless --no-pause`;

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function migrate(): Promise<void> {
  const config = configFromEnv();
  await ensureDatabase(config.databaseUrl);
  print({ status: 'ok', applied: await runMigrations(config.databaseUrl, await extensionMigrations(config.extensions)) });
}

/** The same organization bootstrap as POST /admin/v1/organizations, printing the same JSON. */
async function bootstrap(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { org: { type: 'string' }, app: { type: 'string' }, 'multi-org': { type: 'boolean' }, 'time-zone': { type: 'string' } },
  });
  const body = plainToInstance(CreateOrganizationBody, {
    organization: { name: values.org, multi_org_enabled: values['multi-org'] ?? false, time_zone: values['time-zone'] ?? 'UTC' },
    application: { name: values.app },
  });
  const errors = await validate(body);
  if (errors.length) throw toAppError(errors);
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  try {
    print(await new TenancyService(dataSource).createOrganization(body));
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Events whose job ran out of attempts (status `failed`): listed with their error, or (replay) set back to pending
 * and queued again. Processing is idempotent, so a replay can never count an event twice.
 */
async function failedEvents(replay: boolean): Promise<void> {
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  const connection = queueConnection(config, 1);
  const queue = new Queue(QueueName.Events, { connection, prefix: config.queuePrefix });
  try {
    const columns = `id, customer_id AS "customerId", organization_id AS "organizationId", ${occurredKey('occurred_at')} AS "occurredAt", reason`;
    const rows: Array<QueuedEvent & { reason: string | null }> = replay
      ? await dataSource.query(`WITH r AS (UPDATE events SET status = 'pending', reason = NULL WHERE status = 'failed' RETURNING ${columns}) SELECT * FROM r ORDER BY id`)
      : await dataSource.query(`SELECT ${columns} FROM events WHERE status = 'failed' ORDER BY id`);
    if (replay && rows.length) await enqueueEvents(queue, rows, EventsJob.Evaluate, `replay-${Date.now()}`);
    print({ status: 'ok', [replay ? 'replayed' : 'failed']: rows.map((r) => ({ event_id: r.id, customer_id: r.customerId, reason: r.reason })) });
  } finally {
    await queue.close();
    if (connection instanceof Cluster) connection.disconnect(); // a cluster client is not BullMQ's to close
    await dataSource.destroy();
  }
}

/**
 * Rewards' after-commit effects that failed every attempt (status `dead`): listed with their last error, or (replay)
 * set open again and queued on the reward-effects queue. An effect commits its writes with being marked done, so a replay
 * never does twice what it did in the database.
 */
async function deadEffects(replay: boolean): Promise<void> {
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  const effects = new RewardEffectsRepository();
  const connection = queueConnection(config, 1);
  const queue = new Queue(QueueName.RewardEffects, { connection, prefix: config.queuePrefix });
  try {
    if (!replay) {
      print({ status: 'ok', dead: await effects.dead(dataSource) });
      return;
    }
    const ids = await effects.revive(dataSource);
    await removeFailedJobs(queue, ids.map((id) => `effect-${id}`));
    await enqueueEffects(queue, ids);
    print({ status: 'ok', replayed: ids.map((id) => ({ effect_id: id })) });
  } finally {
    await queue.close();
    if (connection instanceof Cluster) connection.disconnect(); // a cluster client is not BullMQ's to close
    await dataSource.destroy();
  }
}

/**
 * Events the workers rejected (status `rejected`, e.g. customer_not_found), newest first: of one organization with
 * --org, else of every organization; 100 a page unless --limit says otherwise (at most 1,000).
 */
async function rejectedEvents(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { org: { type: 'string' }, limit: { type: 'string' }, page: { type: 'string' } } });
  const number = (name: string, value: string | undefined, fallback: number, max: number): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new AppError('validation', `--${name} must be an integer from 1 to ${max}`, [{ field: name, message: `must be an integer from 1 to ${max}` }]);
    }
    return n;
  };
  const org = values.org === undefined ? null : number('org', values.org, 0, 2_147_483_647);
  const limit = number('limit', values.limit, 100, 1000);
  const page = number('page', values.page, 1, 1_000_000);
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  try {
    const { events, total } = await listRejectedEvents(dataSource, org, limit, (page - 1) * limit);
    print({ status: 'ok', organization_id: org, rejected: events, page, limit, total });
  } finally {
    await dataSource.destroy();
  }
}

/** One run of the event log's maintenance (the workers run it every minute), printing what it did. */
async function maintainEventLog(): Promise<void> {
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  try {
    const maintenance = new EventLogMaintenance(dataSource, config, createLogger('silent', 'cli'), systemClock);
    const report = await dataSource.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock($1)`, [MAINTENANCE_LOCK]); // after a worker's run, if one is running
      return maintenance.maintain(em, systemClock.now());
    });
    print({ status: 'ok', ...report });
  } finally {
    await dataSource.destroy();
  }
}

/**
 * The ledger's backfill (decision 0019, step 3) run now, as each worker runs it at start: after a worker's run if one is
 * running (the same advisory lock), paced unless --no-pause; prints the credits filled and the time it took.
 */
async function backfillLedger(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-pause': { type: 'boolean' } } });
  const config = configFromEnv();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  try {
    const backfill = new LedgerBackfill(dataSource, new LedgerBackfillRepository(), createLogger('silent', 'cli'));
    const report = await backfill.run({ paced: !values['no-pause'], wait: true });
    if (report === null) throw new Error('the backfill lock was not taken');
    const { rows, reversed, batches, skipped, seconds } = report;
    print({ status: 'ok', rows, reversed, batches, skipped, seconds, rows_per_second: seconds > 0 ? Math.round(rows / seconds) : null });
  } finally {
    await dataSource.destroy();
  }
}

/**
 * The analytics backfill (decision 0022) run now, as each worker that takes events work runs it at start: after a
 * worker's run if one is running (the same advisory lock), paced unless --no-pause; prints what it walked.
 */
async function backfillAnalytics(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-pause': { type: 'boolean' } } });
  const dataSource = createDataSource(configFromEnv().databaseUrl);
  await dataSource.initialize();
  try {
    const report = await new AnalyticsBackfill(dataSource, new AnalyticsBackfillRepository(), createLogger('silent', 'cli')).run({ paced: !values['no-pause'], wait: true });
    if (report === null) throw new Error('the backfill lock was not taken');
    print({ status: 'ok', ...report, events_per_second: report.seconds > 0 ? Math.round(report.events / report.seconds) : null });
  } finally {
    await dataSource.destroy();
  }
}

/** The command line's logger: silent, as its other commands' (stdout is the JSON it prints). */
@Global()
@Module({ providers: [{ provide: LOGGER, useValue: createLogger('silent', 'cli') }], exports: [LOGGER] })
class CliLoggingModule {}

/** What the command line starts to find the extensions: the service's shared modules (those an extension may inject). */
@Module({ imports: [CoreModule, CliLoggingModule] })
class CliExtensionsModule {}

/**
 * Stored extension arguments that their extension's class now refuses (decision 0027), upgraded through the extension's
 * `upgrade` and written back (an audit entry per object, the rules version bumped); with --dry-run, what would be.
 * Prints what was upgraded and what stays stale (no upgrade, the upgrade threw, or its result is refused too).
 */
async function upgradeExtensionArguments(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean' } } });
  const config = configFromEnv();
  const extensions = await loadExtensions(config.extensions);
  const app = await NestFactory.createApplicationContext(withExtensions(CliExtensionsModule, extensions), { logger: false });
  try {
    const registry = app.get(ExtensionRegistry);
    checkExtensionsFound(config.extensions, registry);
    const report = await upgradeStaleArguments(app.get(DataSource), registry.arguments(), { dryRun: values['dry-run'] ?? false, clock: systemClock });
    print({ status: 'ok', ...report });
  } finally {
    await app.close();
  }
}

const [command, ...rest] = process.argv.slice(2);
await runProcess('cli', async () => {
  try {
    if (command === 'migrate') return await migrate();
    if (command === 'bootstrap') return await bootstrap(rest);
    if (command === 'events:failed') return await failedEvents(false);
    if (command === 'events:replay' && rest.includes('--failed')) return await failedEvents(true);
    if (command === 'events:rejected') return await rejectedEvents(rest);
    if (command === 'events:maintain') return await maintainEventLog();
    if (command === 'effects:dead') return await deadEffects(false);
    if (command === 'effects:replay' && rest.includes('--dead')) return await deadEffects(true);
    if (command === 'ledger:backfill') return await backfillLedger(rest);
    if (command === 'analytics:backfill') return await backfillAnalytics(rest);
    if (command === 'extensions:upgrade') return await upgradeExtensionArguments(rest);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    print({ status: 'error', errors: { code: error.code, message: error.message, details: error.details } });
    process.exitCode = 1;
  }
});
