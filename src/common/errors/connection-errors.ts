const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08006', '08001', '08003', '08004']);

/** True when an error means PostgreSQL or Redis could not be reached (not a bug in a query). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code ?? (error as { driverError?: { code?: string } }).driverError?.code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connect ECONNREFUSED|Connection is closed|timeout exceeded when trying to connect|Stream isn't writeable/i.test(
    error.message,
  );
}
