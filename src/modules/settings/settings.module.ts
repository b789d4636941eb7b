import { Module } from '@nestjs/common';
import { TiersModule } from '../customers-state/index.js';
import { SettingsController } from './settings.controller.js';
import { SettingsService } from './settings.service.js';

/** The organization's settings: points expiry and the tier policy, whose changes the tiers module applies to customers. */
@Module({
  imports: [TiersModule],
  controllers: [SettingsController],
  providers: [SettingsService],
})
export class SettingsModule {}
