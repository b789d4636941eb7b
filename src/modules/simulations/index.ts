/** The simulations module's face: what other modules may import of it. */
export { SimulationsWorkerModule } from './simulations-worker.module.js';
export { SimulationsModule } from './simulations.module.js';
