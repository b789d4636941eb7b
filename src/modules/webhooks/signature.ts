import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: 32 random bytes, hex, with a prefix that makes it recognizable in a secret store. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/** The `x-webhook-signature` value: `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` under the webhook's secret. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
