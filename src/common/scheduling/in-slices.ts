import { performance } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';

/** How long a request's computation may hold the event loop before it lets other work run. */
export const SLICE_MS = 20;

/**
 * Drives `steps` to its end, and whenever the steps since the last pause took `sliceMs` (by `now`, a monotonic clock in
 * milliseconds), lets the event loop run what waits (other requests' I/O and timers) before the next step. Answers the
 * generator's return value.
 */
export async function inSlices<T>(steps: Generator<void, T, void>, sliceMs = SLICE_MS, now: () => number = () => performance.now()): Promise<T> {
  let began = now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (now() - began >= sliceMs) {
      await turn();
      began = now();
    }
  }
}
