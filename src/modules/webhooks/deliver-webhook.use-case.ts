import http from 'node:http';
import https from 'node:https';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { signWebhook } from './signature.js';
import { isPrivateAddress, publicOnlyLookup } from './url-policy.js';

/** How long one POST may take, connection included, before it counts as a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const USER_AGENT = 'campaign-engine-webhooks/1';

export interface AttemptResult {
  deliveryId: string;
  webhookId: number;
  type: string;
  attempt: number;
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  durationMs: number;
  status: 'delivered' | 'retrying' | 'failed';
}

interface ClaimedDelivery {
  attempts: number;
  payload: unknown;
  type: string;
  webhook_id: number;
  url: string;
  secret: string;
}

/**
 * One HTTP attempt of an outbox delivery (worker only): the delivery is claimed (attempts + 1) if it is still open and
 * its webhook not deleted, POSTed with a signature over `<timestamp>.<body>`, and the attempt is recorded with its
 * answer. Never throws for an HTTP failure: the caller decides on retries from the result.
 */
@Injectable()
export class DeliverWebhookUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Answers null when there is nothing to send (delivered already, cancelled, or the webhook deleted). */
  async execute(deliveryId: string, last: boolean): Promise<AttemptResult | null> {
    const [claimed]: ClaimedDelivery[] = await this.db.query(
      // (An UPDATE inside WITH: TypeORM answers the rows of a SELECT, but [rows, count] for a bare UPDATE.)
      `WITH claimed AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, updated_at = now()
           FROM webhooks w
          WHERE d.id = $1 AND w.id = d.webhook_id AND d.status IN ('pending', 'retrying') AND w.deleted_at IS NULL
          RETURNING d.attempts, d.payload, d.type, d.webhook_id, w.url, w.secret
       ) SELECT * FROM claimed`,
      [deliveryId],
    );
    if (!claimed) {
      await this.db.query(`UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now() WHERE id = $1 AND status IN ('pending', 'retrying')`, [
        deliveryId,
      ]);
      return null;
    }
    const startedAt = new Date(this.clock.now());
    const { responseCode, error } = await this.post(deliveryId, claimed);
    const finishedAt = new Date(this.clock.now());
    const ok = error === null;
    const status = ok ? 'delivered' : last ? 'failed' : 'retrying';
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    await this.db.query(
      `WITH a AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status, response_code, error, duration_ms, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       )
       UPDATE webhook_deliveries SET status = $9, updated_at = now(), delivered_at = CASE WHEN $9 = 'delivered' THEN now() END WHERE id = $1`,
      [deliveryId, claimed.attempts, ok ? 'succeeded' : 'failed', responseCode, error, durationMs, startedAt, finishedAt, status],
    );
    return { deliveryId, webhookId: claimed.webhook_id, type: claimed.type, attempt: claimed.attempts, ok, responseCode, error, durationMs, status };
  }

  private async post(deliveryId: string, delivery: ClaimedDelivery): Promise<{ responseCode: number | null; error: string | null }> {
    const url = new URL(delivery.url);
    const guard = !this.config.webhookAllowPrivateNetworks;
    // An address literal is not looked up: checked here. A name is checked by the lookup the connection itself uses.
    if (guard && isPrivateAddress(url.hostname)) return { responseCode: null, error: 'the URL points at a private address' };
    const body = JSON.stringify(delivery.payload);
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
      'x-webhook-id': (delivery.payload as { id: string }).id,
      'x-webhook-delivery': deliveryId,
      'x-webhook-type': delivery.type,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signWebhook(delivery.secret, timestamp, body),
    };
    try {
      const status = await postOnce(url, headers, body, guard ? publicOnlyLookup : undefined);
      return status >= 200 && status < 300 ? { responseCode: status, error: null } : { responseCode: status, error: `HTTP ${status}` };
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const reason = e.code === 'EPRIVATEADDRESS' ? e.message : (e.code ?? e.message);
      return { responseCode: null, error: String(reason).slice(0, 500) };
    }
  }
}

/** One POST (no redirects followed), bounded by DELIVERY_TIMEOUT_MS in all; answers the status code. */
function postOnce(url: URL, headers: Record<string, string>, body: string, lookup: typeof publicOnlyLookup | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers, ...(lookup ? { lookup } : {}) }, (res) => {
      res.resume(); // the answer's body is not kept
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`timed out after ${DELIVERY_TIMEOUT_MS} ms`), { code: `timed out after ${DELIVERY_TIMEOUT_MS} ms` })), DELIVERY_TIMEOUT_MS);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end(body);
  });
}
