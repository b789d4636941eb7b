import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * How busy this process's event loop has been lately: Node's event-loop utilization (the share of the time spent
 * running callbacks rather than waiting for I/O) over the last SAMPLES samples, taken every SAMPLE_MS, weighted by
 * their length (a sample delayed by a long callback counts for its whole length). A loop busy all the time makes every
 * new request wait behind the work already queued in it.
 */
const SAMPLE_MS = 100;
const SAMPLES = 5;

@Injectable()
export class EventLoopLoad implements OnModuleDestroy {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly window: EventLoopUtilization[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS).unref();
  }

  /** 0 (idle) to 1 (busy all the time) over the window; 0 before the first sample. */
  utilization(): number {
    let active = 0;
    let total = 0;
    for (const s of this.window) [active, total] = [active + s.active, total + s.active + s.idle];
    return total === 0 ? 0 : active / total;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    this.window.push(performance.eventLoopUtilization(now, this.last));
    this.last = now;
    if (this.window.length > SAMPLES) this.window.shift();
  }
}
