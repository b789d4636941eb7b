import { Module } from '@nestjs/common';
import { TenancyModule } from '../../tenancy/index.js';
import { CampaignsModule } from '../campaigns.module.js';
import { LineItemsController } from './line-items.controller.js';
import { LineItemsService } from './line-items.service.js';

@Module({
  imports: [TenancyModule, CampaignsModule],
  controllers: [LineItemsController],
  providers: [LineItemsService],
  exports: [LineItemsService],
})
export class LineItemsModule {}
