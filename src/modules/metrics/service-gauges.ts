import type { Pool } from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import type { Clock } from '../../common/clock.js';
import type { RedisClient } from '../../redis/connection.js';
import { OUTCOME_COUNTERS, outcomeKey, type OutcomeCounter } from './event-counters.js';
import { EFFECTS_COUNTED, oldestDueCredit, rewardEffectsBacklog, type EffectsBacklog } from './metrics.repository.js';

/**
 * The other queues' outcome counters (webhook deliveries, simulation runs, reward effects' attempts), read from Redis
 * at scrape time: every
 * worker adds to them, so one scrape of one API shows them all. Gauges, as `events_total` is: the value is read, not
 * counted by this process; it only grows (until Redis loses it).
 */
export function registerOutcomeCounters(registry: Registry, redis: RedisClient, prefix: string): void {
  for (const [name, { help, outcomes }] of Object.entries(OUTCOME_COUNTERS) as Array<[OutcomeCounter, (typeof OUTCOME_COUNTERS)[OutcomeCounter]]>) {
    new Gauge({
      name,
      help,
      labelNames: ['outcome'],
      registers: [registry],
      async collect() {
        const values = await redis.mget(...outcomes.map((outcome) => outcomeKey(prefix, name, outcome))).catch(() => null);
        outcomes.forEach((outcome, i) => this.set({ outcome }, Number(values?.[i] ?? 0)));
      },
    });
  }
}

/**
 * This process's PostgreSQL pool at scrape time: connections open, idle, and requests waiting for one. Waiting above 0
 * at scrape after scrape means the pool (DATABASE_POOL_SIZE) or PostgreSQL is the bottleneck.
 */
export function registerPoolGauge(registry: Registry, db: DataSource): void {
  new Gauge({
    name: 'db_pool_clients',
    help: "This process's PostgreSQL pool by state: total (open connections), idle, waiting (requests waiting for a connection)",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = (db.driver as PostgresDriver).master as Pool | undefined;
      if (!pool) return;
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
}

/**
 * How far the points expiry sweeper is behind: seconds since the oldest credit still unexpired fell due (0 when none
 * is due). One read of the first entry of the partial index `points_ledger_due` per scrape. While the workers run, a
 * credit is expired within about 10 s of its `expires_at` (docs/points.md); a value that stays well above that is a
 * backlog (workers with the `points` queue down, or a mass expiry paced by POINTS_EXPIRY_RATE).
 */
export function registerExpiryBacklogGauge(registry: Registry, db: DataSource, clock: Clock): void {
  new Gauge({
    name: 'points_expiry_backlog_seconds',
    help: 'Seconds since the oldest credit still to expire fell due (0: none is due); while the workers run, about 10 s at most outside a backlog',
    registers: [registry],
    async collect() {
      const now = clock.now();
      const oldest = await oldestDueCredit(db, now).then(
        (at) => ({ at }),
        () => null,
      );
      if (!oldest) return; // PostgreSQL unreachable: the last value stays, /health/ready says why
      this.set(oldest.at ? Math.max(0, (now - new Date(oldest.at).getTime()) / 1000) : 0);
    },
  });
}

/**
 * The health of rewards' after-commit effects (the reward-effects queue), read from PostgreSQL at scrape time (one
 * statement over two small partial indexes, shared by both gauges): effects open (pending or retrying) and dead, each
 * counted up to EFFECTS_COUNTED, and the seconds since the oldest open one last changed. An open effect is attempted
 * again within about 4.5 minutes of its last attempt (the longest backoff) while a worker with its extension takes the
 * queue; one that stays open much longer is a backlog, or no worker runs it.
 */
export function registerRewardEffectsGauges(registry: Registry, db: DataSource, clock: Clock): void {
  let reading: Promise<EffectsBacklog | null> | null = null;
  const read = () =>
    (reading ??= rewardEffectsBacklog(db)
      .catch(() => null) // PostgreSQL unreachable: the last values stay, /health/ready says why
      .finally(() => (reading = null)));
  new Gauge({
    name: 'reward_effects_backlog',
    help: `Rewards' after-commit effects by status: open (pending or retrying: still to run), dead (every attempt failed: to mend and replay); each counted up to ${EFFECTS_COUNTED}`,
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const backlog = await read();
      if (!backlog) return;
      this.set({ status: 'open' }, backlog.open);
      this.set({ status: 'dead' }, backlog.dead);
    },
  });
  new Gauge({
    name: 'reward_effects_oldest_open_seconds',
    help: "Seconds since the oldest open reward effect was created or last attempted (0: none is open); an open effect's next attempt comes within about 4.5 minutes while a worker runs it",
    registers: [registry],
    async collect() {
      const now = clock.now();
      const backlog = await read();
      if (!backlog) return;
      this.set(backlog.oldestOpen ? Math.max(0, (now - new Date(backlog.oldestOpen).getTime()) / 1000) : 0);
    },
  });
}
