import { ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { waitFor } from '../../support/worker.js';
import { freePort } from '../../support/ports.js';
import { redisAnswers } from '../../support/redis.js';

/**
 * A redis-server of a test's own, on a free port, without persistence: a spec stops and starts it at will (the shared
 * Redis on 6379 is never touched). What it held is gone once stopped, as after a crash of an unpersisted Redis.
 */
export interface PrivateRedis {
  readonly url: string;
  /** Starts it (again) on the same port and waits until it answers PING; nothing to do when it runs. */
  start(): Promise<void>;
  /** Kills it (SIGKILL: a crash) and waits for the process to exit. Harmless when it is not running. */
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => child?.kill('SIGKILL');

  const server: PrivateRedis = {
    url,
    async start() {
      if (child) return;
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', tmpdir()];
      const proc = spawn('redis-server', args, { stdio: 'ignore' });
      child = proc;
      exited = new Promise((resolve) => proc.once('exit', () => resolve()));
      process.once('exit', killOnExit);
      await waitFor(() => redisAnswers(url), 10_000, `redis-server on port ${port} to answer`, 50);
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      child = null;
      process.removeListener('exit', killOnExit);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
  await server.start();
  return server;
}
