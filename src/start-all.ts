import { spawn, ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `npm start`: the API and two worker processes side by side, sharing this terminal: one takes events, webhooks,
 * audience jobs and points expiry; the other simulations alone, at a lower OS priority (WORKER_NICE), so that a replay
 * never takes the cores from events. SIGINT/SIGTERM are passed on to all; when one exits, the others are stopped too
 * and this process exits with the first one's code.
 */
const PROCESSES: Array<[file: string, env: NodeJS.ProcessEnv]> = [
  ['main.js', {}],
  ['worker.js', { WORKER_QUEUES: 'events,webhooks,audience-jobs,points' }],
  ['worker.js', { WORKER_QUEUES: 'simulations', WORKER_NICE: '10' }],
];
const children: ChildProcess[] = PROCESSES.map(([file, env]) =>
  spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit', env: { ...process.env, ...env } }),
);
let exiting = false;

function stopAll(signal: NodeJS.Signals): void {
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}

for (const child of children) {
  child.on('exit', (code) => {
    if (!exiting) {
      exiting = true;
      process.exitCode = code ?? 1;
      stopAll('SIGTERM');
    }
  });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    exiting = true;
    stopAll(signal);
  });
}
