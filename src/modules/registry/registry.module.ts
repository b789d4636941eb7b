import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEnrichment } from './event-enrichment.js';
import { ExtensionFailures } from './extension-failures.js';
import { ExtensionRegistry } from './extension-registry.js';

/** The extension registry, for every module that compiles rules (API and workers), the event enrichment, and where extensions' failures are counted. */
@Global()
@Module({ imports: [DiscoveryModule], providers: [ExtensionRegistry, EventEnrichment, ExtensionFailures], exports: [ExtensionRegistry, EventEnrichment, ExtensionFailures] })
export class RegistryModule {}
