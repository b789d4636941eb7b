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
  /** A reward's after-commit effect (an extension's), delivered like a webhook: retried, then dead. */
  RewardEffect = 'reward-effect',
}

export enum AudienceJobsJob {
  Deliver = 'deliver',
}

export enum SimulationsJob {
  Run = 'run',
}
