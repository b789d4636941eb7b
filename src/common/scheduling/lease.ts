/** A runner's lease, renewed on a timer while it works (LeaseHeartbeat). */
export interface LeaseHeartbeat {
  /** True once a renewal found the row no longer the runner's (cancelled, or claimed again after the lease expired). */
  lost(): boolean;
  /** Stops renewing: call it in a `finally`. */
  stop(): void;
}

/**
 * Renews a claimed row's lease every `everyMs` (well inside the lease) by calling `renew`, which writes the row fenced
 * by the runner's attempt and answers whether the runner still holds it. A timer, not a check between steps, so that a
 * long wait (a cursor sorting a large range, a slow page) renews the lease too. One renewal at a time (a slow
 * database); a renewal that fails is left to the next one: the lease is several of them long.
 */
export function leaseHeartbeat(everyMs: number, renew: () => Promise<boolean>): LeaseHeartbeat {
  let lost = false;
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    renew()
      .then(
        (held) => (lost ||= !held),
        () => undefined,
      )
      .finally(() => (renewing = false));
  }, everyMs);
  return { lost: () => lost, stop: () => clearInterval(timer) };
}
