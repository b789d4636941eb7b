const MAX_ORGANIZATIONS = 1000;

interface Entry<T> {
  version: number;
  value: Promise<T>;
}

/**
 * A value per organization, loaded once per configuration version (every management write bumps
 * `organizations.rules_version`), at most MAX_ORGANIZATIONS kept. The load runs on whatever connection its caller
 * holds; callers asking meanwhile wait for that one load, and if it fails (the caller's transaction failed) each of
 * them loads again with its own.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<number, Entry<T>>();

  /** The value loaded last, whatever its version (a hint, may be stale). */
  peek(organizationId: number): Promise<T> | null {
    return this.entries.get(organizationId)?.value ?? null;
  }

  async get(organizationId: number, version: number, load: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(organizationId);
    if (!cached || cached.version < version) return this.load(organizationId, version, load);
    try {
      return await cached.value;
    } catch {
      return this.load(organizationId, version, load);
    }
  }

  private load(organizationId: number, version: number, load: () => Promise<T>): Promise<T> {
    const entry: Entry<T> = { version, value: load() };
    entry.value.catch(() => {
      if (this.entries.get(organizationId) === entry) this.entries.delete(organizationId);
    });
    this.entries.delete(organizationId);
    if (this.entries.size >= MAX_ORGANIZATIONS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(organizationId, entry);
    return entry.value;
  }
}
