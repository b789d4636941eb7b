import { lookup } from 'node:dns/promises';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { signWebhook } from './signature.js';
import { isPrivateAddress } from './url-policy.js';

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
    const startedAt = new Date();
    const { responseCode, error } = await this.post(deliveryId, claimed);
    const finishedAt = new Date();
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
    try {
      if (!this.config.webhookAllowPrivateNetworks) {
        // A public name may resolve to a private address: checked again at every attempt.
        const host = url.hostname.replace(/^\[|\]$/g, '');
        const addresses = await lookup(host, { all: true });
        if (addresses.some((a) => isPrivateAddress(a.address))) return { responseCode: null, error: 'the URL resolves to a private address' };
      }
      const body = JSON.stringify(delivery.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      const payloadId = (delivery.payload as { id: string }).id;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-webhook-id': payloadId,
          'x-webhook-delivery': deliveryId,
          'x-webhook-type': delivery.type,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-signature': signWebhook(delivery.secret, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await res.body?.cancel().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? { responseCode: res.status, error: null } : { responseCode: res.status, error: `HTTP ${res.status}` };
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      const reason = e.name === 'TimeoutError' ? `timed out after ${DELIVERY_TIMEOUT_MS} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { responseCode: null, error: String(reason).slice(0, 500) };
    }
  }
}
