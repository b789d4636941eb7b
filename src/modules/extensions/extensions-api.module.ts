import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/index.js';
import { ExtensionListing } from './extension-listing.js';
import { ExtensionsController } from './extensions.controller.js';

/** The listing of what rules may use and the extensions in the OpenAPI document (the API only; the registry is RegistryModule's). */
@Module({ imports: [TenancyModule], controllers: [ExtensionsController], providers: [ExtensionListing], exports: [ExtensionListing] })
export class ExtensionsApiModule {}
