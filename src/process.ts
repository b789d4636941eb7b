import { ConfigError } from './config/config.js';
import { DependencyError } from './database/preflight.js';

/**
 * Runs a process's start-up. A configuration problem or a missing dependency ends the process with one clear line
 * on stderr and exit code 1, not a stack trace.
 */
export async function runProcess(name: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    const known = error instanceof ConfigError || error instanceof DependencyError;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name}: cannot start: ${known ? message : `unexpected error: ${message}`}\n`);
    process.exit(1);
  }
}
