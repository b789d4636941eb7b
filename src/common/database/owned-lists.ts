import type { EntityManager, EntityTarget, FindOptionsOrder, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import { type PageQuery, pageWindow } from '../http/pagination.dto.js';

type Owned = ObjectLiteral & { id: number; organizationId: number };

/** The organization's live objects that `where` names (those below one parent), in id order. */
export function ownedRows<T extends Owned>(em: EntityManager, entity: EntityTarget<T>, where: FindOptionsWhere<T>, organizationId: number): Promise<T[]> {
  return em.find(entity, { where: { ...where, organizationId } as FindOptionsWhere<T>, order: { id: 'ASC' } as FindOptionsOrder<T> });
}

/** One page of the organization's live objects, in id order, with the page's place and how many there are in all. */
export async function ownedPage<T extends Owned>(
  em: EntityManager,
  entity: EntityTarget<T>,
  organizationId: number,
  query: PageQuery,
): Promise<{ rows: T[]; page: number; limit: number; total: number }> {
  const [rows, total] = await em.findAndCount(entity, {
    where: { organizationId } as FindOptionsWhere<T>,
    order: { id: 'ASC' } as FindOptionsOrder<T>,
    ...pageWindow(query),
  });
  return { rows, page: query.page, limit: query.limit, total };
}
