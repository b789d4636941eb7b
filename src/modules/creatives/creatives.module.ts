import { Module } from '@nestjs/common';
import { LineItemsModule } from '../campaigns/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { AudienceJobsController } from './audience-jobs/audience-jobs.controller.js';
import { AudienceJobsService } from './audience-jobs/audience-jobs.service.js';
import { AudienceScheduleService } from './audience-jobs/audience-schedule.service.js';
import { CreativeGroupsController } from './creative-groups.controller.js';
import { CreativeGroupsService } from './creative-groups.service.js';
import { CreativesController } from './creatives.controller.js';
import { CreativesService } from './creatives.service.js';

@Module({
  imports: [TenancyModule, LineItemsModule],
  controllers: [CreativeGroupsController, CreativesController, AudienceJobsController],
  providers: [CreativeGroupsService, CreativesService, AudienceJobsService, AudienceScheduleService],
  exports: [CreativeGroupsService, CreativesService],
})
export class CreativesModule {}
