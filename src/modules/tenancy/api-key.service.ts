import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { RedisClient } from '../../redis/connection.js';
import { createRedis, REDIS } from '../../redis/redis.module.js';
import { ApiKeyVerifier, BUSY, isApiKeyForm } from '../../common/auth/api-key-verifier.js';
import { hashSecret, newSecret, sha256, verifySecret } from './secrets.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';

interface CachedKey {
  tenant: Tenant;
  secretDigest: Buffer;
  /** The stored hash the secret was verified against. */
  secretHash: string;
  expiresAt: number;
}

interface KeyRow {
  id: number;
  key: string;
  secret_hash: string;
  active: boolean;
  organization_id: number;
  application_id: number;
  multi_org_enabled: boolean;
  time_zone: string;
  root_division_id: number;
}

/**
 * Verifies an api key and its secret. A verified pair is kept in memory for API_KEY_CACHE_SECONDS so the hot path
 * hashes once, not per request; deactivating a key drops it here and, through Redis pub/sub, in every process.
 *
 * Every refusal of a key of the api key form does the same work, so the time of a 401 does not tell which keys exist:
 * one lookup of the key and one scrypt verification, against the key's stored hash when the key exists (active or
 * not) and against a dummy hash of the same cost when it does not. A wrong secret for a cached key is checked the
 * same way (the cache only answers a matching secret), so a key others use often is not told apart either.
 *
 * Once a cached pair expires, the key is looked up again, but the secret is not hashed again while the key is active
 * and its stored hash is the one it was verified against: scrypt costs tens of milliseconds of CPU, and every request
 * in flight when a busy key's entry expired paid it at once (V1's p99 jumped every API_KEY_CACHE_SECONDS).
 *
 * Requests that verify the same key and secret at the same moment share one verification, and one process hashes at
 * most AUTH_VERIFICATIONS_AT_ONCE secrets at once: past that, `verify` answers BUSY without hashing (429 for the
 * client), so that guesses from many addresses cannot take every core.
 */
@Injectable()
export class ApiKeyService extends ApiKeyVerifier implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, CachedKey>();
  /** Verifications under way, by key and secret digest. */
  private readonly verifying = new Map<string, Promise<Tenant | null | typeof BUSY>>();
  /** Secrets being hashed now. */
  private hashing = 0;
  private subscriber: RedisClient | null = null;
  private readonly channel: string;
  /** A hash of a random secret, same scheme and cost as stored ones: what an unknown key's secret is verified against. */
  private readonly dummyHash: Promise<string>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
    this.channel = `${config.queuePrefix}:api-key-invalidated`;
    this.dummyHash = hashSecret(newSecret());
  }

  onModuleInit(): void {
    const subscriber = createRedis(this.config);
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, key: string) => this.cache.delete(key));
    subscriber.on('ready', () => {
      // Anything may have changed while the subscription was down.
      this.cache.clear();
      subscriber.subscribe(this.channel).catch((error: Error) => this.logger.warn({ err: error.message }, 'api key invalidation subscribe failed'));
    });
    this.subscriber = subscriber;
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber?.disconnect();
  }

  /** The tenant for a valid, active key and matching secret; BUSY when too many secrets are being hashed; null otherwise. */
  async verify(key: string, secret: string): Promise<Tenant | null | typeof BUSY> {
    if (!isApiKeyForm(key)) return null; // no such key can exist: no query (a NUL in it would even fail one)
    const digest = sha256(secret);
    const cached = this.cache.get(key);
    // The cache answers a matching secret only; a wrong one goes the uncached way, the same work as an unknown key.
    const verified = cached !== undefined && timingSafeEqual(cached.secretDigest, digest);
    if (verified && cached.expiresAt > this.clock.now()) return cached.tenant;
    const id = `${key}:${digest.toString('hex')}`;
    let work = this.verifying.get(id);
    if (!work) {
      work = this.lookUp(key, secret, digest, verified ? cached : undefined).finally(() => this.verifying.delete(id));
      this.verifying.set(id, work);
    }
    return work;
  }

  /** The key looked up and the secret verified against its hash (or against the dummy hash when there is no such key). */
  private async lookUp(key: string, secret: string, digest: Buffer, verifiedBefore: CachedKey | undefined): Promise<Tenant | null | typeof BUSY> {
    const row = await this.findKey(key);
    // Expired, but this secret was verified against this very hash of a key still active: no second scrypt.
    const unchanged = verifiedBefore !== undefined && row !== undefined && row.active && row.secret_hash === verifiedBefore.secretHash;
    if (!unchanged && this.hashing >= this.config.authVerificationsAtOnce) return BUSY;
    const matches = unchanged || (await this.hash(async () => verifySecret(secret, row ? row.secret_hash : await this.dummyHash)));
    if (!row || !row.active || !matches) return null;
    const tenant: Tenant = {
      organizationId: row.organization_id,
      applicationId: row.application_id,
      apiKeyId: row.id,
      apiKey: row.key,
      multiOrgEnabled: row.multi_org_enabled,
      timeZone: row.time_zone,
      rootDivisionId: row.root_division_id,
    };
    if (this.config.apiKeyCacheSeconds > 0) {
      this.cache.set(key, { tenant, secretDigest: digest, secretHash: row.secret_hash, expiresAt: this.clock.now() + this.config.apiKeyCacheSeconds * 1000 });
    }
    return tenant;
  }

  private async hash<T>(work: () => Promise<T>): Promise<T> {
    this.hashing += 1;
    try {
      return await work();
    } finally {
      this.hashing -= 1;
    }
  }

  /**
   * The tenant when the key was verified recently with this very secret (the cache), without a lookup or a hash;
   * null otherwise, also for a key not in the cache. For a source over its failed-attempt budget.
   */
  verifyCached(key: string, secret: string): Tenant | null {
    const cached = this.cache.get(key);
    if (!cached || cached.expiresAt <= this.clock.now()) return null;
    return timingSafeEqual(cached.secretDigest, sha256(secret)) ? cached.tenant : null;
  }

  /** Deactivates a key; false when no such key exists. */
  async deactivate(key: string): Promise<boolean> {
    if (!isApiKeyForm(key)) return false;
    const result = await this.db.query(`UPDATE api_keys SET active = false, deactivated_at = now() WHERE key = $1 RETURNING id`, [key]);
    const rows = result[0] as unknown[];
    this.invalidate(key);
    return rows.length > 0;
  }

  /** Drops a key from every process's cache (also call it after changing organization settings the tenant holds). */
  invalidate(key: string): void {
    this.cache.delete(key);
    this.redis.publish(this.channel, key).catch((error: Error) => {
      this.logger.warn({ err: error.message }, 'api key invalidation not published; other processes expire it by TTL');
    });
  }

  private async findKey(key: string): Promise<KeyRow | undefined> {
    const rows: KeyRow[] = await this.db.query(
      `SELECT k.id, k.key, k.secret_hash, k.active, k.organization_id, k.application_id,
              o.multi_org_enabled, o.time_zone, d.id AS root_division_id
         FROM api_keys k
         JOIN organizations o ON o.id = k.organization_id
         JOIN divisions d ON d.organization_id = o.id AND d.parent_id IS NULL
        WHERE k.key = $1`,
      [key],
    );
    return rows[0];
  }
}
