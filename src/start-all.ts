import { spawn, ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `npm start`: one API process and one worker process side by side, sharing this terminal. SIGINT/SIGTERM are passed
 * on to both; when either exits, the other is stopped too and this process exits with the first one's code.
 */
const children: ChildProcess[] = ['main.js', 'worker.js'].map((file) =>
  spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' }),
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
