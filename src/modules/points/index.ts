/** The points module's face: what other modules may import of it. */
export { LedgerEntryView } from './dto/points.dto.js';
export { LedgerBackfillRepository } from './ledger-backfill.repository.js';
export { LedgerBackfill } from './ledger-backfill.js';
export { PointsWorkerModule } from './points-worker.module.js';
export { PointsModule } from './points.module.js';
