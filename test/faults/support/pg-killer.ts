import type pg from 'pg';
import { loadConfig } from '../../../src/config/config.js';

/**
 * This run's database URL with an application_name of the spec's own: a service started on it can have its
 * connections killed without touching those of the other specs that share the run's database.
 */
export function databaseUrlNamed(applicationName: string): string {
  const url = new URL(loadConfig(process.env).databaseUrl);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** Terminates every connection to this run's database under `applicationName` (but the caller's); answers how many. */
export async function killConnections(db: pg.Pool, applicationName: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS killed FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
    [applicationName],
  );
  return rows[0].killed;
}

/**
 * Kills the connections under `applicationName` every `everyMs` until `stop()`, which answers how many it killed in
 * all. A kill that fails (the checker's own connection is never a target) stops the loop with that error.
 */
export function keepKilling(db: pg.Pool, applicationName: string, everyMs: number): { stop(): Promise<number> } {
  let running = true;
  const loop = (async () => {
    let killed = 0;
    while (running) {
      killed += await killConnections(db, applicationName);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    return killed;
  })();
  return {
    stop: async () => {
      running = false;
      return loop;
    },
  };
}
