import { AppError } from '../../common/errors/app-error.js';

const TIMED_OUT = Symbol('timed out');

/**
 * Runs an extension's work under a deadline: a throw is answered 500 internal_error, a deadline passed 503
 * service_unavailable, each naming the extension (`what`). The work is not stopped when its deadline passes; what it
 * answers then is dropped.
 */
export async function callExtension<T>(what: string, timeoutMs: number, work: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs)));
  try {
    const outcome = await Promise.race([Promise.resolve().then(work), deadline]);
    if (outcome === TIMED_OUT) throw new AppError('service_unavailable', `${what} did not answer within ${timeoutMs} ms`);
    return outcome;
  } catch (error) {
    throw error instanceof AppError ? error : new AppError('internal_error', `${what} failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
