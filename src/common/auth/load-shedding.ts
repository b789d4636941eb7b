import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { AppError } from '../errors/app-error.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { ApiKeyVerifier } from './api-key-verifier.js';
import { EventLoopLoad } from '../http/event-loop-load.js';
import { basicCredentials } from './api-key.guard.js';
import { OrganizationTurns } from './organization-turns.js';
import { OrganizationUsage } from './organization-usage.js';
import { ApiSaturation } from '../../queues/api-saturation.js';
import { REDIS } from '../../redis/redis.module.js';
import type { RedisClient } from '../../redis/connection.js';

/**
 * Sheds the organization that asks the most of a saturated API process. A request answers 429 `rate_limited`
 * (retry-after 1) before its body is read when all of these hold:
 * - the process's event loop has been busy at least SHED_LOAD_AT_LOOP_PERCENT of the last second (EventLoopLoad);
 * - another organization has a request in progress or had one answered within the last 250 ms: the one the shedding
 *   protects (OrganizationTurns);
 * - its organization's requests brought the most bytes lately (OrganizationUsage), and at least
 *   SHED_LOAD_AT_SHARE_PERCENT of every organization's: organizations of comparable demand share a saturated process by
 *   the turns (OrganizationTurns); only one that asks many times what the others ask together is shed;
 * - its organization has a request in progress: it always keeps one going.
 * An organization alone on the process is never shed: its requests wait for their turns. While the loop is saturated,
 * the process says so to the events workers (ApiSaturation), which take one job at a time meanwhile.
 *
 * It knows the organization only from a key verified lately with the same secret (ApiKeyService's cache, nothing
 * hashed), and counts only such requests: a request with a made-up or a wrong secret neither counts for an
 * organization nor is shed here (the guards answer it).
 */
const LEADER_MS = 50;
/** Another organization served within this many milliseconds is one the shedding protects. */
const OTHERS_WITHIN_MS = 250;

@Injectable()
export class LoadShedding {
  private readonly usage = new OrganizationUsage(() => performance.now());
  private top: { at: number; leader: ReturnType<OrganizationUsage['top']> } = { at: -Infinity, leader: null };
  private readonly saturation: ApiSaturation;

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'shedLoadAtLoopPercent' | 'shedLoadAtSharePercent' | 'queuePrefix'>,
    private readonly apiKeys: ApiKeyVerifier,
    private readonly turns: OrganizationTurns,
    private readonly loop: EventLoopLoad,
    @Inject(REDIS) redis: RedisClient,
  ) {
    this.saturation = new ApiSaturation(redis, config.queuePrefix, () => performance.now());
  }

  /** The organization asking the most, read again at most every LEADER_MS (a read walks every organization seen lately). */
  private leader(): ReturnType<OrganizationUsage['top']> {
    const at = performance.now();
    if (at - this.top.at >= LEADER_MS) this.top = { at, leader: this.usage.top() };
    return this.top.leader;
  }

  /** The Express middleware (configure-app.ts mounts it before the body parser). */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (this.config.shedLoadAtLoopPercent === 0) return next();
      const credentials = basicCredentials(req.header('authorization'));
      const tenant = credentials && this.apiKeys.verifyCached(credentials.key, credentials.secret);
      if (!tenant) return next();
      this.usage.add(tenant.organizationId, Number(req.header('content-length')) || 0);
      if (this.loop.utilization() * 100 < this.config.shedLoadAtLoopPercent) return next();
      this.saturation.saturated(); // the events workers take one job at a time meanwhile
      const organizationId = tenant.organizationId;
      const leader = this.leader();
      const shed =
        this.turns.load(organizationId).running > 0 && // it keeps one going
        this.turns.othersServed(organizationId, OTHERS_WITHIN_MS) &&
        leader?.organizationId === organizationId &&
        leader.share * 100 >= this.config.shedLoadAtSharePercent;
      if (!shed) return next();
      req.tenant = tenant; // for the request's log line
      res.setHeader('retry-after', 1);
      next(new AppError('rate_limited', 'the service is saturated and this organization asks the most of it; retry in a second'));
    };
  }
}
