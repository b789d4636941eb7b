/** The audit module's face: what other modules may import of it. */
export { AuditModule } from './audit.module.js';
export { ConfigChangesService } from './config-changes.service.js';
