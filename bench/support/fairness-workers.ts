/**
 * The fairness benchmark's worker processes, started as `npm start` runs them (node dist/src/worker.js, the queues
 * each serves in WORKER_QUEUES, the simulations worker at WORKER_NICE 10), their JSON log lines read as they come:
 * lock-renewal failures (the "queue error" lines whose `err` names a lock), lines that mention stalled jobs, other
 * queue errors and error lines. Stalled jobs are also counted by a QueueEvents listener per queue.
 */
import type { ChildProcess } from 'node:child_process';
import { Queue, QueueEvents } from 'bullmq';
import { QueueName } from '../../src/queues/queue-names.js';
import { startNode, waitForLine } from './processes.js';

export interface WorkerSpec {
  name: string;
  /** What the process's environment adds, as src/start-all.ts (npm start) sets it. */
  env: Record<string, string>;
}

/** One events worker (and the rest but simulations), one simulations worker at a lower OS priority: as `npm start`. */
export const WORKERS: WorkerSpec[] = [
  { name: 'events worker', env: { WORKER_QUEUES: 'events,webhooks,audience-jobs,points', WORKER_NICE: process.env.BENCH_FAIR_EVENTS_NICE ?? '0' } },
  { name: 'simulations worker', env: { WORKER_QUEUES: 'simulations', WORKER_NICE: '10' } },
];

export interface WorkerHealth {
  lockFailures: string[];
  stalledLines: string[];
  queueErrors: string[];
  errorLines: string[];
  /** Jobs QueueEvents saw stalled, per queue. */
  stalled: Record<string, number>;
}

export interface Workers {
  processes: ChildProcess[];
  health: WorkerHealth;
  /** Worker connections per queue, as BullMQ counts them (which processes serve which queue). */
  perQueue(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Reads `child`'s stdout as JSON lines, and sorts the ones that matter into `health`. */
function watchLog(name: string, child: ChildProcess, health: WorkerHealth): void {
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      let entry: { level?: number; msg?: string; err?: unknown } = {};
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        // not JSON: kept only if it says something of the kinds counted below
      }
      const err = typeof entry.err === 'string' ? entry.err : JSON.stringify(entry.err ?? '');
      const tagged = `${name}: ${line.slice(0, 400)}`;
      if (entry.msg === 'queue error' && /lock/i.test(err)) health.lockFailures.push(tagged);
      else if (entry.msg === 'queue error') health.queueErrors.push(tagged);
      if (/stalled/i.test(line)) health.stalledLines.push(tagged);
      if ((entry.level ?? 0) >= 50) health.errorLines.push(tagged);
    }
  });
}

/** Starts the worker processes and the listeners; answers once every process has logged "worker ready". */
export async function startWorkers(env: NodeJS.ProcessEnv): Promise<Workers> {
  const connection = { url: env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null };
  const prefix = env.QUEUE_PREFIX!;
  const health: WorkerHealth = { lockFailures: [], stalledLines: [], queueErrors: [], errorLines: [], stalled: {} };
  const names = Object.values(QueueName) as string[];
  const listeners = names.map((queue) => {
    const events = new QueueEvents(queue, { connection, prefix });
    events.on('stalled', () => (health.stalled[queue] = (health.stalled[queue] ?? 0) + 1));
    events.on('error', () => undefined);
    return events;
  });
  const queues = names.map((queue) => new Queue(queue, { connection, prefix }));
  const close = async () => {
    await Promise.allSettled([...listeners.map((l) => l.close()), ...queues.map((q) => q.close())]);
  };
  try {
    await Promise.all(listeners.map((l) => l.waitUntilReady()));
    const processes = WORKERS.map((w) => {
      const child = startNode('dist/src/worker.js', { ...env, ...w.env }, 'pipe');
      watchLog(w.name, child, health);
      return child;
    });
    await Promise.all(processes.map((child) => waitForLine(child, 'worker ready', 60_000)));
    const perQueue = async () => {
      const counts = await Promise.all(queues.map((q) => q.getWorkersCount()));
      return Object.fromEntries(names.map((name, i) => [name, counts[i]]));
    };
    return { processes, health, perQueue, close };
  } catch (error) {
    await close(); // the processes started are stopped by the caller's stopAll()
    throw error;
  }
}
