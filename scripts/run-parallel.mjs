// Runs npm scripts at the same time, for `npm test`'s checks before Jest: lint, type-check, OpenAPI lint and build
// are independent of one another, each one process, and together on a 2-core machine they take about the longest one
// instead of their sum. Each script's output is printed whole when it ends (not interleaved), with its time; the exit
// code is non-zero when any of them failed, once all have ended.
// Usage: node scripts/run-parallel.mjs lint typecheck lint:openapi build
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.mjs <npm script>...\n');
  process.exit(2);
}
const npm = process.env.npm_execpath;

function run(name) {
  const started = Date.now();
  const [command, args] = npm ? [process.execPath, [npm, 'run', name]] : ['npm', ['run', name]];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'passed' : `FAILED (${signal ?? `exit code ${code}`})`;
      process.stdout.write(`${output}${output.endsWith('\n') || output === '' ? '' : '\n'}${name}: ${status} in ${seconds} s\n\n`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(names.map(run));
const failed = names.filter((_, i) => !results[i]);
if (failed.length) {
  process.stdout.write(`failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
