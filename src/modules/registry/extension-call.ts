import { AppError } from '../../common/errors/app-error.js';

const TIMED_OUT = Symbol('timed out');

/**
 * Runs an extension's work under a deadline: a throw is answered 500 internal_error, a deadline passed 503
 * service_unavailable, each naming the extension (`what`). JavaScript cannot stop the work when its deadline passes:
 * the `signal` it is given is aborted then (its reason a `TimeoutError` DOMException, as `AbortSignal.timeout` gives),
 * for the work to hand to its own I/O (fetch, a client's cancel) and stop; what it answers after the deadline is
 * dropped. The signal is aborted only by the deadline, never once the work has answered. `failed` hears of a throw or a
 * deadline passed (ExtensionFailures counts it), with what was thrown.
 */
export async function callExtension<T>(
  what: string,
  timeoutMs: number,
  work: (signal: AbortSignal) => T | Promise<T>,
  failed?: (error: unknown, message: string) => void,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>(
    (resolve) =>
      (timer = setTimeout(() => {
        resolve(TIMED_OUT);
        controller.abort(new DOMException(`${what} did not answer within ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs)),
  );
  try {
    const outcome = await Promise.race([Promise.resolve(controller.signal).then(work), deadline]);
    if (outcome === TIMED_OUT) {
      const message = `timed out after ${timeoutMs} ms`;
      failed?.(new Error(message), message);
      throw new AppError('service_unavailable', `${what} did not answer within ${timeoutMs} ms`);
    }
    return outcome;
  } catch (error) {
    if (error instanceof AppError) throw error;
    failed?.(error, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    throw new AppError('internal_error', `${what} failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The error a statement of an extension's work is refused with once its deadline has passed (its signal aborted). */
export function pastDeadline(signal: AbortSignal): Error {
  return new Error(`no statement can be sent after the deadline: ${(signal.reason as Error | undefined)?.message ?? 'aborted'}`);
}
