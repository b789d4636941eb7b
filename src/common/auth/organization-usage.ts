/** What a request counts for beside its body, in bytes: headers, routing, authentication, the answer. */
export const REQUEST_BYTES = 1024;
/** An organization's usage halves every this many milliseconds. */
const HALF_LIFE_MS = 1000;
/** Usage below this is forgotten (about ten half-lives after one plain request). */
const FORGOTTEN = 1;

interface Used {
  bytes: number;
  at: number;
}

/**
 * What each organization asked of an API process lately: the bytes of its requests (REQUEST_BYTES each plus the body
 * its content-length announces), decaying by half every second. Bytes stand for the work: parsing, validating and
 * storing a body grow with its size, and the size is known before the body is read.
 */
export class OrganizationUsage {
  private readonly used = new Map<number, Used>();

  /** `now`: a monotonic clock in milliseconds (performance.now in the service). */
  constructor(private readonly now: () => number) {}

  add(organizationId: number, bodyBytes: number): void {
    const at = this.now();
    this.used.set(organizationId, { bytes: this.decayed(this.used.get(organizationId), at) + REQUEST_BYTES + bodyBytes, at });
  }

  /** The organization that asked the most lately, how much, and its share of what every organization asked (null when none did). */
  top(): { organizationId: number; bytes: number; share: number } | null {
    const at = this.now();
    let top: { organizationId: number; bytes: number } | null = null;
    let total = 0;
    for (const [organizationId, used] of this.used) {
      const bytes = this.decayed(used, at);
      total += bytes;
      if (bytes < FORGOTTEN) this.used.delete(organizationId);
      else if (!top || bytes > top.bytes) top = { organizationId, bytes };
    }
    return top && { ...top, share: top.bytes / total };
  }

  private decayed(used: Used | undefined, at: number): number {
    return used ? used.bytes * 0.5 ** ((at - used.at) / HALF_LIFE_MS) : 0;
  }
}
