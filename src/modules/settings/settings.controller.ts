import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { SettingsBody, SettingsResponse } from '../tenancy/index.js';
import { SettingsService } from './settings.service.js';

@ApiTags('management: settings')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @ApiOperation({ summary: "The organization's settings", description: 'Answers the settings of the api key\'s organization.' })
  @ApiOkResponse({ type: SettingsResponse })
  async get(@CurrentTenant() tenant: Tenant): Promise<SettingsResponse> {
    return { status: 'ok', settings: await this.settings.get(tenant) };
  }

  @Put()
  @ApiOperation({
    summary: "Change the organization's settings",
    description:
      'Partial: the members sent change, the others keep their values; answers the settings as they are now. The change is written ' +
      'to the audit log. 400 missing_data without the `settings` wrapper; 400 argument_error for an unknown member; 400 validation ' +
      'for a value out of range (points_expire_after_days: an integer from 1 to 36500, or null).',
  })
  @ApiOkResponse({ type: SettingsResponse, description: 'The settings after the change' })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async update(@CurrentTenant() tenant: Tenant, @Body() body: SettingsBody): Promise<SettingsResponse> {
    return { status: 'ok', settings: await this.settings.update(tenant, body.settings) };
  }
}
