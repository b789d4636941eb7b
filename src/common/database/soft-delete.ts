/** The name a soft-deleted object answers with (and keeps): the marker frees the original name for reuse. */
export function deletedName(name: string, at: Date): string {
  return `${name} [DELETED AT ${at.toISOString()}]`;
}
