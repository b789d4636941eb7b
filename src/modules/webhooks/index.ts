/** The webhooks module's face: what other modules may import of it. */
export { enqueueDeliveries } from './enqueue-deliveries.js';
export { webhookOccurrences } from './occurrences.js';
export type { WebhookEventType, WebhookOccurrence } from './occurrences.js';
export { WebhookSubscriptions } from './subscriptions.js';
export { WebhooksWorkerModule } from './webhooks-worker.module.js';
export { WebhooksModule } from './webhooks.module.js';
