import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { CustomersController } from './customers.controller.js';
import { CustomersService } from './customers.service.js';
import { NotificationsService } from './notifications.service.js';

@Module({
  imports: [TenancyModule],
  controllers: [CustomersController],
  providers: [CustomersService, NotificationsService],
  exports: [CustomersService],
})
export class CustomersStateModule {}
