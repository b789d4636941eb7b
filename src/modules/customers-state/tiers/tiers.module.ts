import { Module } from '@nestjs/common';
import { TenancyModule } from '../../tenancy/tenancy.module.js';
import { TiersController } from './tiers.controller.js';
import { TiersService } from './tiers.service.js';

@Module({
  imports: [TenancyModule],
  controllers: [TiersController],
  providers: [TiersService],
  exports: [TiersService],
})
export class TiersModule {}
