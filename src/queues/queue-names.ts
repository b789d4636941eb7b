/** Every queue and job name of the service, in one place. Processors live only in the worker process. */
export enum QueueName {
  Events = 'events',
  Webhooks = 'webhooks',
  AudienceJobs = 'audience-jobs',
  Simulations = 'simulations',
  RewardEffects = 'reward-effects',
}

export enum EventsJob {
  Evaluate = 'evaluate',
}

export enum WebhooksJob {
  Deliver = 'deliver',
}

export enum RewardEffectsJob {
  /** A reward's after-commit effect (an extension's): retried as a webhook delivery is, then dead. */
  Run = 'reward-effect',
}

export enum AudienceJobsJob {
  Deliver = 'deliver',
}

export enum SimulationsJob {
  Run = 'run',
}
