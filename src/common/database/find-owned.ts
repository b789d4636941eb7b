import type { EntityManager, EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import { AppError } from '../errors/app-error.js';

/**
 * A live (not soft-deleted) object of the organization, else `404 not_found` naming `what`: an object of another
 * organization answers exactly like one that does not exist. `lock` holds its row for the rest of the transaction.
 */
export async function findOwned<T extends ObjectLiteral & { organizationId: number }>(
  em: EntityManager,
  entity: EntityTarget<T>,
  where: FindOptionsWhere<T>,
  organizationId: number,
  what: string,
  lock = false,
): Promise<T> {
  const found = await em.findOne(entity, {
    where: { ...where, organizationId } as FindOptionsWhere<T>,
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!found) throw AppError.notFound(what);
  return found;
}
