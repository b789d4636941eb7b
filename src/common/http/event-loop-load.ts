import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

const SAMPLE_MS = 100;
const SAMPLES = 10;

/**
 * How busy this process's event loop has been lately: Node's event-loop utilization (the share of the time spent
 * running callbacks rather than waiting for I/O) over the last SAMPLES samples, taken every SAMPLE_MS, weighted by
 * their length (a sample delayed by a long callback counts for its whole length). A loop busy all the time makes every
 * new request wait behind the work already queued in it. Sampling starts at the first reading: a process that never
 * asks (a worker) runs no timer.
 */
@Injectable()
export class EventLoopLoad implements OnModuleDestroy {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly window: EventLoopUtilization[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** 0 (idle) to 1 (busy all the time) over the window; 0 before the first sample. */
  utilization(): number {
    if (!this.timer) {
      this.last = performance.eventLoopUtilization();
      this.timer = setInterval(() => this.sample(), SAMPLE_MS).unref();
    }
    let active = 0;
    let total = 0;
    for (const s of this.window) [active, total] = [active + s.active, total + s.active + s.idle];
    return total === 0 ? 0 : active / total;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    this.window.push(performance.eventLoopUtilization(now, this.last));
    this.last = now;
    if (this.window.length > SAMPLES) this.window.shift();
  }
}
