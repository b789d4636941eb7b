/** The extensions module's face: what other modules may import of it. */
export { ExtensionListing } from './extension-listing.js';
export { ExtensionsApiModule } from './extensions-api.module.js';
export { upgradeStaleArguments } from './stale-arguments.service.js';
