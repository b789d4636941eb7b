import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { ExtensionsController } from './extensions.controller.js';

/** The listing of reward kinds and criteria operators (the API only; the registry itself is ExtensionsModule's). */
@Module({ imports: [TenancyModule], controllers: [ExtensionsController] })
export class ExtensionsApiModule {}
