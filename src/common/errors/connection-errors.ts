const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08006', '08001', '08003', '08004']);

/**
 * True when an error means PostgreSQL or Redis could not be reached (not a bug in a query). Read by its members, not
 * `instanceof Error`: a socket error raised by Node itself (`write ECONNRESET`) is an Error of another realm where the
 * code runs in a VM context (jest), and would pass for a bug.
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, driverError, message } = error as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const found = code ?? driverError?.code;
  if (typeof found === 'string' && CONNECTION_CODES.has(found)) return true;
  // "... is not queryable": pg refusing a query on a client whose connection was lost or closed (a backend terminated
  // while the client was out of the pool).
  return (
    typeof message === 'string' &&
    /Connection terminated|connect ECONNREFUSED|Connection is closed|timeout exceeded when trying to connect|Stream isn't writeable|is not queryable/i.test(message)
  );
}

/**
 * Why the service could not answer in time, for the 503's message, when the cause is the database's load rather than
 * an outage: no pooled connection free in time, a row lock held elsewhere past the event path's lock_timeout
 * (55P03), or a deadlock PostgreSQL broke (40P01: two campaign budgets locked in different orders). Null for anything else.
 */
export function busyCause(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, driverError, message } = error as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  if ((code ?? driverError?.code) === '55P03') return 'the customer is locked by another transaction that did not finish in time; retry later';
  if ((code ?? driverError?.code) === '40P01') return 'two transactions waited for each other (a deadlock, rolled back); retry';
  if (typeof message === 'string' && /timeout exceeded when trying to connect/i.test(message)) {
    return 'no database connection became free in time (every connection of the pool is busy); retry later';
  }
  return null;
}
