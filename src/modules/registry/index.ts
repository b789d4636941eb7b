/**
 * The registry's face: what every module may use of the extensions (the registry, the call wrapper with its deadline,
 * event enrichment, where failures are counted, loading extension modules, checking stored arguments). The listing, the
 * OpenAPI document and the effects runner stay above, in their own modules.
 */
export { RegistryModule } from './registry.module.js';
export { BuiltIn, ExtensionConfigError, ExtensionRegistry } from './extension-registry.js';
export type { ArgumentsByName, Domain, Enricher, ExtensionArguments, ExtensionDefinition, ExtensionDefinitions } from './extension-registry.js';
export { callExtension, pastDeadline } from './extension-call.js';
export { EventEnrichment } from './event-enrichment.js';
export { ExtensionFailures, failuresMetricKey } from './extension-failures.js';
export type { ExtensionCallFailure, FailureKey, FailureSummary } from './extension-failures.js';
export { checkExtensionsFound, extensionMigrations, loadExtensions, withExtensions } from './load-extensions.js';
export { canonicalJson, checksOf, findStaleValues, keptStaleValues, upgradeStaleValues } from './stale-arguments.js';
export type { ArgumentKind, KeptStaleValues, LeftReason, StaleObjectType, StaleValue, StoredRulesObject, StoredValueChecks, UpgradeOutcome } from './stale-arguments.js';
