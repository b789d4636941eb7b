/** The experiments module's face: what other modules may import of it. */
export { ExperimentsModule } from './experiments.module.js';
