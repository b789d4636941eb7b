/** Every queue and job name of the service, in one place. Processors live only in the worker process. */
export enum QueueName {
  Events = 'events',
  Webhooks = 'webhooks',
}

export enum EventsJob {
  Evaluate = 'evaluate',
}

export enum WebhooksJob {
  Deliver = 'deliver',
}
