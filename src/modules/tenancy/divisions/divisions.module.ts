import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy.module.js';
import { DivisionsController } from './divisions.controller.js';
import { DivisionsService } from './divisions.service.js';

@Module({
  imports: [TenancyModule],
  controllers: [DivisionsController],
  providers: [DivisionsService],
  exports: [DivisionsService],
})
export class DivisionsModule {}
