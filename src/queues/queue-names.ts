/** Every queue and job name of the service, in one place. Processors live only in the worker process. */
export enum QueueName {
  Events = 'events',
  Webhooks = 'webhooks',
  AudienceJobs = 'audience-jobs',
  Simulations = 'simulations',
}

export enum EventsJob {
  Evaluate = 'evaluate',
}

export enum WebhooksJob {
  Deliver = 'deliver',
}

export enum AudienceJobsJob {
  Deliver = 'deliver',
}

export enum SimulationsJob {
  Run = 'run',
}
