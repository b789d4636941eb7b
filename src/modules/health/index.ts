/** The health module's face: what other modules may import of it. */
export { HealthModule } from './health.module.js';
