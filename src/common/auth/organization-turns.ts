import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';

/** How long the end of an organization's last request is remembered (othersServed). */
const REMEMBER_MS = 1000;

interface Line {
  running: number;
  waiting: Array<() => void>;
}

/**
 * Each organization's share of an API process: at most ORGANIZATION_REQUESTS_AT_ONCE of its requests are served at
 * once; the next ones wait in the organization's own line, in order, up to ORGANIZATION_REQUESTS_WAITING (past it, the
 * caller answers 429). An organization that sends a flood waits behind its own requests: another's never stand
 * behind them for the process's database connections (docs/limits.md).
 */
@Injectable()
export class OrganizationTurns {
  private readonly lines = new Map<number, Line>();
  /** When each organization's last request ended (performance.now()), for othersServed; kept REMEMBER_MS. */
  private readonly lastEnded = new Map<number, number>();
  private forgottenAt = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'organizationRequestsAtOnce' | 'organizationRequestsWaiting'>) {}

  /** Resolves with the function that ends the turn once it is the request's; null when the organization's line is full. */
  take(organizationId: number): Promise<() => void> | null {
    const line = this.lines.get(organizationId) ?? { running: 0, waiting: [] };
    this.lines.set(organizationId, line);
    if (line.running < this.config.organizationRequestsAtOnce) {
      line.running += 1;
      return Promise.resolve(this.end(organizationId, line));
    }
    if (line.waiting.length >= this.config.organizationRequestsWaiting) return null;
    return new Promise((resolve) => line.waiting.push(() => resolve(this.end(organizationId, line))));
  }

  /** Requests of the organization served now and waiting in its line. */
  load(organizationId: number): { running: number; waiting: number } {
    const line = this.lines.get(organizationId);
    return { running: line?.running ?? 0, waiting: line?.waiting.length ?? 0 };
  }

  /** Whether an organization other than this one has a request in progress, or had one end within `withinMs` (at most REMEMBER_MS). */
  othersServed(organizationId: number, withinMs: number): boolean {
    for (const id of this.lines.keys()) if (id !== organizationId) return true;
    const since = performance.now() - withinMs;
    for (const [id, at] of this.lastEnded) if (id !== organizationId && at >= since) return true;
    return false;
  }

  /** Notes when the organization's request ended, and forgets (at most once a REMEMBER_MS) ends older than that. */
  private remember(organizationId: number): void {
    const now = performance.now();
    this.lastEnded.set(organizationId, now);
    if (now - this.forgottenAt < REMEMBER_MS) return;
    this.forgottenAt = now;
    for (const [id, at] of this.lastEnded) if (now - at > REMEMBER_MS) this.lastEnded.delete(id);
  }

  /** Ends a turn once: the next request in line takes it, or the line is forgotten when empty. */
  private end(organizationId: number, line: Line): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.remember(organizationId);
      const next = line.waiting.shift();
      if (next) return next(); // the turn passes on: `running` stays
      line.running -= 1;
      if (line.running === 0) this.lines.delete(organizationId);
    };
  }
}
