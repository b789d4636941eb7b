import { Module } from '@nestjs/common';
import { LineItemsModule } from '../campaigns/line-items/line-items.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { CreativeGroupsController } from './creative-groups.controller.js';
import { CreativeGroupsService } from './creative-groups.service.js';
import { CreativesController } from './creatives.controller.js';
import { CreativesService } from './creatives.service.js';

@Module({
  imports: [TenancyModule, LineItemsModule],
  controllers: [CreativeGroupsController, CreativesController],
  providers: [CreativeGroupsService, CreativesService],
  exports: [CreativeGroupsService, CreativesService],
})
export class CreativesModule {}
