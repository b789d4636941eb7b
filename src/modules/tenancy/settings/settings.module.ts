import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy.module.js';
import { SettingsController } from './settings.controller.js';
import { SettingsService } from './settings.service.js';

@Module({
  imports: [TenancyModule],
  controllers: [SettingsController],
  providers: [SettingsService],
})
export class SettingsModule {}
