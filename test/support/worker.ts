import { ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { INestApplicationContext, Type } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Clock } from '../../src/common/clock.js';
import { AppConfig, loadConfig } from '../../src/config/config.js';
import { buildTestWorker, deleteRedisKeys } from '../../src/extension-api/testing-core.js';

/**
 * The real worker (queue processor and sweeper, same modules as src/worker.ts) in-process, on this run's database and
 * Redis prefix. `config` overrides single settings (queuePrefix, workerConcurrency, sweepAfterSeconds, ...), `clock`
 * the time its code asks for (on a database of the spec's own: its sweepers act on that time), `extensions` modules
 * added beside the worker's own (docs/extending.md). Close it with `close()`, which waits for the jobs it is running.
 * A spec on the shared database names the `workerQueues` it needs: the `points` work brings the sweepers of points'
 * expiry and tiers' reviews, which act on every file's customers by the real clock. Built as the extension test kit
 * builds its worker (src/extension-api/testing-core.ts).
 */
export async function startTestWorker(config: Partial<AppConfig> = {}, clock?: Clock, extensions: Type[] = []): Promise<INestApplicationContext> {
  return buildTestWorker({ ...loadConfig(process.env), ...config }, extensions, clock);
}

/**
 * Polls `condition` until it answers true, at most `timeoutMs`. Only a bound on waiting, never an assertion on speed:
 * the assertions that follow say what was expected.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'a condition', intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`waiting for ${what}: not met after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs `work` with a BullMQ handle on queue `name` under `prefix` (this run's Redis), closed after. */
export async function withQueue<T>(name: string, prefix: string, work: (queue: Queue) => Promise<T>): Promise<T> {
  const queue = new Queue(name, { connection: { url: loadConfig(process.env).redisUrl, maxRetriesPerRequest: null }, prefix });
  try {
    return await work(queue);
  } finally {
    await queue.close();
  }
}

/** A queue prefix of this run's own (QUEUE_PREFIX plus a suffix), for a test that must not share jobs with others. */
export function ownQueuePrefix(suffix: string): string {
  return `${loadConfig(process.env).queuePrefix}-${suffix}`;
}

/** Deletes every Redis key under `${prefix}:${pattern}`; answers how many were deleted. */
export async function deleteQueueKeys(prefix: string, pattern = '*'): Promise<number> {
  return deleteRedisKeys({ redisUrl: loadConfig(process.env).redisUrl, redisCluster: false }, `${prefix}:${pattern}`);
}

/** The project root: built processes run from there, as `npm run start:worker` runs them. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess {
  process: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Started in a process group of its own (signals go to the whole group). */
  group: boolean;
}

/** Starts the API, `node dist/src/main.js`, with this run's environment, logging at info, plus `env` (set PORT). */
export function spawnApi(env: Record<string, string> = {}): WorkerProcess {
  return start(process.execPath, ['dist/src/main.js'], env, false);
}

/** Starts `node dist/src/worker.js` with this run's environment, logging at info, plus `env`. */
export function spawnWorker(env: Record<string, string> = {}): WorkerProcess {
  return start(process.execPath, ['dist/src/worker.js'], env, false);
}

/**
 * Starts the worker as an operator does, `npm run start:worker` (which brings dist/ up to date first: nothing to do
 * after the test run's own build), in a process group of its own: signal it with `signalGroup`. npm's own lines are
 * silenced, so stdout holds only the worker's JSON lines.
 */
export function spawnNpmWorker(env: Record<string, string> = {}): WorkerProcess {
  const npm = process.env.npm_execpath;
  return npm ? start(process.execPath, [npm, 'run', '--silent', 'start:worker'], env, true) : start('npm', ['run', '--silent', 'start:worker'], env, true);
}

/** Sends `signal` to every process of the child's group (npm, its shell and the worker it started). */
export function signalGroup(child: WorkerProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.process.pid!, signal);
  } catch {
    // the group is gone already
  }
}

function start(command: string, args: string[], env: Record<string, string>, detached: boolean): WorkerProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
  delete childEnv.NODE_OPTIONS; // jest's own flags would add warnings on stderr
  const proc = spawn(command, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached });
  const child: WorkerProcess = {
    process: proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
    group: detached,
  };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.stdout += chunk));
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.stderr += chunk));
  return child;
}

/** The complete JSON lines the process wrote to stdout so far (a line that is not JSON throws). */
export function logLines(child: WorkerProcess): Array<Record<string, unknown>> {
  return child.stdout
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Kills the process (SIGKILL unless told) if it still runs, and waits for its exit (at most 10 s). */
export async function killWorker(child: WorkerProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.group) signalGroup(child, signal);
  else if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([child.exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]).finally(() => clearTimeout(timer));
}
