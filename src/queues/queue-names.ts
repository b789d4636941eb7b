/** Every queue and job name of the service, in one place. Processors live only in the worker process. */
export enum QueueName {
  Events = 'events',
}

export enum EventsJob {
  Evaluate = 'evaluate',
}
