/** The data-rights module's face: what other modules may import of it. */
export { DataRightsWorkerModule } from './data-rights-worker.module.js';
export { DataRightsModule } from './data-rights.module.js';
