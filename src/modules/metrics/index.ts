/** The metrics module's face: what other modules may import of it. */
export { EventCounters } from './event-counters.js';
export type { EventCounter } from './event-counters.js';
export { EventCountersModule, MetricsModule } from './metrics.module.js';
export { MetricsService } from './metrics.service.js';
