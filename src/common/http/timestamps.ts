/** The last members of an object's view: created_at, updated_at and, once it is soft-deleted, deleted_at. */
export function timestampsView(o: { createdAt: Date; updatedAt: Date; deletedAt?: Date | null }): {
  created_at: string;
  updated_at: string;
  deleted_at?: string;
} {
  return {
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    ...(o.deletedAt ? { deleted_at: o.deletedAt.toISOString() } : {}),
  };
}
