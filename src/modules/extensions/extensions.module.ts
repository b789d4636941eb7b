import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExtensionRegistry } from './extension-registry.js';

/** The extension registry, for every module that compiles rules (API and workers). */
@Global()
@Module({ imports: [DiscoveryModule], providers: [ExtensionRegistry], exports: [ExtensionRegistry] })
export class ExtensionsModule {}
