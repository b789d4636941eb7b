/** The settings module's face: what other modules may import of it. */
export { SettingsModule } from './settings.module.js';
