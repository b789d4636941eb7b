import type { RedisClient } from '../redis/connection.js';

/** How long one API process's word that its event loop is saturated lasts, unless said again. */
export const SATURATED_FOR_MS = 2000;
/** How often an API process says it again at most, and how often a worker reads it. */
export const SATURATION_EVERY_MS = 500;

const key = (prefix: string) => `${prefix}:api-saturated`;

/**
 * What the API processes tell the workers through Redis: that an API's event loop is saturated (SHED_LOAD_AT_LOOP_PERCENT
 * of the last second). The events worker then takes one job at a time, so that on a shared machine event processing
 * yields the cores to the requests (docs/limits.md). A failed Redis call changes nothing: the word lapses by itself.
 */
export class ApiSaturation {
  private saidAt = -Infinity;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  /** Says (at most every SATURATION_EVERY_MS) that this API process is saturated, for SATURATED_FOR_MS. */
  saturated(): void {
    const at = this.now();
    if (at - this.saidAt < SATURATION_EVERY_MS) return;
    this.saidAt = at;
    this.redis.set(key(this.prefix), '1', 'PX', SATURATED_FOR_MS).catch(() => undefined);
  }

  /** Whether an API process said lately that it is saturated (false when Redis does not answer). */
  async anySaturated(): Promise<boolean> {
    return (await this.redis.exists(key(this.prefix)).catch(() => 0)) === 1;
  }
}
