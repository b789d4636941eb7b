import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from '../logging/logger.js';

const SWEEP_EVERY_MS = 5_000;

/**
 * A sweep every 5 seconds in every worker process, run by one process at a time (a transaction-scoped PostgreSQL
 * advisory lock elects it): it finds rows whose queue job was lost (Redis down or flushed, a crash between commit and
 * enqueue) and queues them again. A sweep never overlaps the previous one; shutdown waits for the one running; a
 * failed sweep is logged and the next one retries. Subclasses say what one sweep does.
 */
export abstract class PeriodicSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  /** Set once the process shuts down: a long sweep stops starting batches. */
  protected stopping = false;
  /** Whether the first sweep runs at boot, not 5 seconds later. */
  protected readonly sweepAtBoot: boolean = false;

  protected constructor(
    private readonly database: DataSource,
    protected readonly logger: Logger,
    /** The advisory lock key, one per kind of sweep. */
    private readonly lockKey: number,
    /** What is swept, for the log line of a failed sweep. */
    private readonly what: string,
  ) {}

  onApplicationBootstrap(): void {
    const start = () => {
      if (!this.running && !this.stopping) this.running = this.sweep().finally(() => (this.running = null));
    };
    this.timer = setInterval(start, SWEEP_EVERY_MS);
    this.timer.unref();
    if (this.sweepAtBoot) setImmediate(start);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One sweep (when this process holds the lock); answers how many it queued. */
  async sweep(): Promise<number> {
    try {
      return await this.database.transaction(async (em) => {
        const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [this.lockKey]);
        return locked ? this.sweepLocked(em) : 0;
      });
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, `${this.what} sweep failed; next one retries`);
      return 0;
    }
  }

  /** One sweep's work, inside the transaction that holds the lock. */
  protected abstract sweepLocked(em: EntityManager): Promise<number>;
}

/** A sweep stops starting batches after this long, so a backlog never delays the next sweep's start by much. */
const SWEEP_BUDGET_MS = 4_000;

/**
 * The pace of one sweep, from now: `next(done)` answers false once the sweep's time (`budgetMs`) is up or `goOn`
 * says stop, else waits until `done` items keep to `perSecond` (a backlog is spread out, so that its writes do not
 * take the event path's latency with them) and answers true.
 */
export function sweepPace(perSecond: number, budgetMs = SWEEP_BUDGET_MS, goOn: () => boolean = () => true): (done: number) => Promise<boolean> {
  const started = performance.now();
  return async (done) => {
    if (!goOn() || performance.now() - started > budgetMs) return false;
    const ahead = (done / perSecond) * 1000 - (performance.now() - started);
    if (ahead > 0) await sleep(ahead);
    return true;
  };
}

/**
 * Batches one after the other until one says it was the last (nothing more due, or every due row busy) or the sweep's
 * time is up, at most `perSecond` items a second (sweepPace). Answers the items done.
 */
export async function pacedBatches(perSecond: number, batch: () => Promise<{ items: number; last: boolean }>): Promise<number> {
  const pace = sweepPace(perSecond);
  let done = 0;
  for (;;) {
    const { items, last } = await batch();
    done += items;
    if (last || !(await pace(done))) return done;
  }
}
