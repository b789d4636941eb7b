/** The creatives module's face: what other modules may import of it. */
export { AudienceJobsWorkerModule } from './audience-jobs/audience-jobs-worker.module.js';
export { AD_TYPES, CREATIVE_TYPES, DELIVERY_METHODS } from './creative-types.js';
export { CreativesModule } from './creatives.module.js';
