import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { REQUEST_BYTES } from './organization-usage.js';

/** How long the end of an organization's last request is remembered (othersServed). */
const REMEMBER_MS = 1000;

interface Waiter {
  /** Arrival order, process-wide: the oldest waiter of the organizations with the fewest requests served goes first. */
  seq: number;
  /** Counted in the line's bytesWaiting; 0 for a request coming back from its customer's lane (never refused). */
  bytes: number;
  start: () => void;
}

interface Line {
  running: number;
  /** Requests that gave their slot back while they wait for their customer's lane (Turn.pause). */
  paused: number;
  waiting: Waiter[];
  bytesWaiting: number;
}

/** A request's turn: held from the guard until its answer is sent or its connection closes. */
export interface Turn {
  /** Ends the turn, once however often it is called: the slot goes to the next waiter. */
  end(): void;
  /** Gives the slot back while the request waits for something that is not the process (its customer's lane). */
  pause(): void;
  /** Takes a slot again after pause, ahead of the organization's waiting requests. */
  resume(): Promise<void>;
}

/**
 * The turns of an API process's requests: at most API_REQUESTS_AT_ONCE are served at once (the database pool's size
 * by default: more would only wait for a connection), and the next ones wait in their organization's own line. An
 * organization alone has every slot; while others are served, each has at most ORGANIZATION_REQUESTS_AT_ONCE, and a
 * slot that frees goes to the organization with the fewest requests in service, the oldest waiter first among equals:
 * organizations share the process by turns, and another's flood holds few of the database's cores. A request waiting
 * for its customer's lane gives its slot back (pause/resume), so a hot customer holds one slot, not every slot of its
 * organization. A request is refused only when its organization's waiting requests would hold more than
 * ORGANIZATION_BYTES_WAITING bytes (the caller answers 429).
 */
@Injectable()
export class OrganizationTurns {
  private readonly lines = new Map<number, Line>();
  private running = 0;
  private seq = 0;
  /** When each organization's last request ended (performance.now()), for othersServed; kept REMEMBER_MS. */
  private readonly lastEnded = new Map<number, number>();
  private forgottenAt = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'apiRequestsAtOnce' | 'organizationRequestsAtOnce' | 'organizationBytesWaiting'>) {}

  /** Resolves with the request's turn once a slot is its; null when the organization's waiting requests hold too many bytes. */
  take(organizationId: number, bodyBytes = 0): Promise<Turn> | null {
    const line = this.lineOf(organizationId);
    const bytes = bodyBytes + REQUEST_BYTES;
    if (line.waiting.length === 0 && this.mayStart(organizationId, line)) {
      this.startIn(line);
      return Promise.resolve(this.turnOf(organizationId, line));
    }
    if (line.bytesWaiting + bytes > this.config.organizationBytesWaiting) {
      this.forgetIfIdle(organizationId, line);
      return null;
    }
    return new Promise((resolve) => this.wait(line, { seq: this.seq++, bytes, start: () => resolve(this.turnOf(organizationId, line)) }));
  }

  /** Requests of the organization served now (paused ones included) and waiting for a slot. */
  load(organizationId: number): { running: number; waiting: number } {
    const line = this.lines.get(organizationId);
    return { running: (line?.running ?? 0) + (line?.paused ?? 0), waiting: line?.waiting.length ?? 0 };
  }

  /** Whether an organization other than this one has a request in progress, or had one end within `withinMs` (at most REMEMBER_MS). */
  othersServed(organizationId: number, withinMs: number): boolean {
    for (const id of this.lines.keys()) if (id !== organizationId) return true;
    const since = performance.now() - withinMs;
    for (const [id, at] of this.lastEnded) if (id !== organizationId && at >= since) return true;
    return false;
  }

  private lineOf(organizationId: number): Line {
    let line = this.lines.get(organizationId);
    if (!line) this.lines.set(organizationId, (line = { running: 0, paused: 0, waiting: [], bytesWaiting: 0 }));
    return line;
  }

  /**
   * Whether a request of the organization may take a free slot: while another organization is served (a request in
   * progress or waiting, or one ended within REMEMBER_MS), at most ORGANIZATION_REQUESTS_AT_ONCE of each one's are.
   */
  private mayStart(organizationId: number, line: Line): boolean {
    if (this.running >= this.config.apiRequestsAtOnce) return false;
    return line.running < this.config.organizationRequestsAtOnce || !this.othersServed(organizationId, REMEMBER_MS);
  }

  private startIn(line: Line): void {
    line.running += 1;
    this.running += 1;
  }

  private wait(line: Line, waiter: Waiter, first = false): void {
    if (first) line.waiting.unshift(waiter);
    else line.waiting.push(waiter);
    line.bytesWaiting += waiter.bytes;
  }

  /** A slot freed: it goes to the organization with waiters and the fewest requests in service, its oldest first. */
  private release(organizationId: number, line: Line): void {
    line.running -= 1;
    this.running -= 1;
    this.forgetIfIdle(organizationId, line);
    while (this.running < this.config.apiRequestsAtOnce) {
      let next: Line | undefined;
      for (const [id, candidate] of this.lines) {
        if (candidate.waiting.length === 0 || !this.mayStart(id, candidate)) continue;
        if (!next || candidate.running < next.running || (candidate.running === next.running && candidate.waiting[0].seq < next.waiting[0].seq)) next = candidate;
      }
      if (!next) return;
      const waiter = next.waiting.shift()!;
      next.bytesWaiting -= waiter.bytes;
      this.startIn(next);
      waiter.start();
    }
  }

  private forgetIfIdle(organizationId: number, line: Line): void {
    if (line.running === 0 && line.paused === 0 && line.waiting.length === 0) this.lines.delete(organizationId);
  }

  private turnOf(organizationId: number, line: Line): Turn {
    let state: 'running' | 'paused' | 'ended' = 'running';
    let comeback: Waiter | null = null; // while it waits to resume
    const seq = this.seq++;
    const unpause = () => {
      line.paused -= 1;
      comeback = null;
    };
    return {
      end: () => {
        if (state === 'ended') return;
        const was = state;
        state = 'ended';
        this.remember(organizationId);
        if (was === 'running') return this.release(organizationId, line);
        const waiting = comeback;
        if (waiting) line.waiting.splice(line.waiting.indexOf(waiting), 1);
        unpause();
        this.forgetIfIdle(organizationId, line);
        waiting?.start(); // its work goes on without a slot: nobody waits for its answer any more
      },
      pause: () => {
        if (state !== 'running') return;
        state = 'paused';
        line.paused += 1;
        this.release(organizationId, line);
      },
      resume: () => {
        if (state !== 'paused' || comeback) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const start = () => {
            if (state === 'paused') {
              unpause();
              state = 'running';
            }
            resolve();
          };
          if (this.mayStart(organizationId, line)) {
            this.startIn(line);
            return start();
          }
          comeback = { seq, bytes: 0, start };
          this.wait(line, comeback, true);
        });
      },
    };
  }

  /** Notes when the organization's request ended, and forgets (at most once a REMEMBER_MS) ends older than that. */
  private remember(organizationId: number): void {
    const now = performance.now();
    this.lastEnded.set(organizationId, now);
    if (now - this.forgottenAt < REMEMBER_MS) return;
    this.forgottenAt = now;
    for (const [id, at] of this.lastEnded) if (now - at > REMEMBER_MS) this.lastEnded.delete(id);
  }
}
