/** Node child processes of a benchmark (workers, the acceptance ceiling), each stopped for sure, even when a phase fails. */
import { spawn, ChildProcess } from 'node:child_process';
import { onInterrupt } from './cleanup.js';

const running = new Set<ChildProcess>();
let registered = false;

/**
 * Starts `node <script>` with `env`; stderr is inherited (a crash shows), stdout is ignored unless `pipe` is asked for
 * (a script that announces it is ready).
 */
export function startNode(script: string, env: NodeJS.ProcessEnv, stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  if (!registered) {
    onInterrupt(stopAll); // Ctrl-C skips the callers' `finally`
    registered = true;
  }
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', stdout, 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/**
 * Resolves when the child writes `line` on its stdout (started with `pipe`), with what it wrote up to then; rejects if
 * it exits first or after `ms`.
 */
export function waitForLine(child: ChildProcess, line: string, ms = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no "${line}" from pid ${child.pid} in ${ms} ms`)), ms);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(line)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`pid ${child.pid} exited (${code}) before "${line}"`));
    });
  });
}

/** SIGTERM (a worker finishes its active jobs and closes), then SIGKILL if it is still there after `ms`. */
export async function stopChild(child: ChildProcess, ms = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
}

/** Every child started by startNode that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}
