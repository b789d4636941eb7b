import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { startNode, stopChild } from './processes.js';

/**
 * A sweeper's pace in a worker process of its own (`env`): from the worker's start to the first item it takes off
 * `due` (the start of a Node process is not the sweep), then what it takes off in `work`'s time. Answers `work`'s
 * result, the items still due after it, and the items per second.
 */
export async function sweepRate<T>(env: NodeJS.ProcessEnv, due: () => Promise<number>, work: () => Promise<T>): Promise<{ result: T; left: number; rate: number }> {
  const worker = startNode('dist/src/worker.js', env);
  try {
    const first = performance.now();
    const before = await due();
    while ((await due()) === before && performance.now() - first < 60_000) await sleep(100);
    const [from, began] = [await due(), performance.now()];
    const result = await work();
    const left = await due();
    return { result, left, rate: (from - left) / ((performance.now() - began) / 1000) };
  } finally {
    await stopChild(worker);
  }
}
