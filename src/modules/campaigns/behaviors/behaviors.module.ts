import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns.module.js';
import { TenancyModule } from '../../tenancy/index.js';
import { BehaviorsController } from './behaviors.controller.js';
import { BehaviorsService } from './behaviors.service.js';

@Module({
  imports: [TenancyModule, CampaignsModule],
  controllers: [BehaviorsController],
  providers: [BehaviorsService],
})
export class BehaviorsModule {}
