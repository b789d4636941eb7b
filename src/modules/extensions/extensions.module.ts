import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventEnrichment } from './event-enrichment.js';
import { ExtensionRegistry } from './extension-registry.js';

/** The extension registry, for every module that compiles rules (API and workers), and the event enrichment. */
@Global()
@Module({ imports: [DiscoveryModule], providers: [ExtensionRegistry, EventEnrichment], exports: [ExtensionRegistry, EventEnrichment] })
export class ExtensionsModule {}
