import type { Tenant } from '../http/request-context.js';

/** What `verify` answers when too many secrets are being hashed at once (429 for the caller). */
export const BUSY = 'busy';

/** Whether a string has the form of an api key (32 lower-case hex characters); anything else names no key. */
export function isApiKeyForm(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value);
}

/**
 * Who tells an api key and secret's tenant: what the guards ask, provided by the tenancy module (which owns the keys),
 * so that `common/` imports no module.
 */
export abstract class ApiKeyVerifier {
  /** The tenant for a valid, active key and matching secret; BUSY when too many secrets are being hashed; null otherwise. */
  abstract verify(key: string, secret: string): Promise<Tenant | null | typeof BUSY>;
  /** The tenant of a key verified lately with the same secret, without a query or a hash; null otherwise. */
  abstract verifyCached(key: string, secret: string): Tenant | null;
}
