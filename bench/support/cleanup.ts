/**
 * What a benchmark must undo even when it is interrupted (Ctrl-C, SIGTERM): its databases, Redis keys and child
 * processes. A failing phase already undoes them in its `finally`; this covers the signals, which skip `finally`.
 */
const pending = new Set<() => Promise<void>>();
let installed = false;

/** Registers `undo` to run if the process is interrupted; answers a function that unregisters it. */
export function onInterrupt(undo: () => Promise<void>): () => void {
  pending.add(undo);
  if (!installed) {
    installed = true;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        process.stderr.write(`bench: ${signal}, cleaning up\n`);
        // What was running fails from here on (its database is dropped under it): that must not stop the cleanup.
        process.on('uncaughtException', () => undefined);
        process.on('unhandledRejection', () => undefined);
        void Promise.allSettled([...pending].map((f) => f())).then(() => process.exit(130));
      });
    }
  }
  return () => pending.delete(undo);
}
