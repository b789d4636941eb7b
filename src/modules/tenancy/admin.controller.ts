import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { BootstrapResponse, CreateApplicationBody, CreateOrganizationBody, CredentialsResponse, StatusOk } from './dto/bootstrap.dto.js';
import { TenancyService } from './tenancy.service.js';

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminGuard)
@Controller('admin/v1')
export class AdminController {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly apiKeys: ApiKeyService,
  ) {}

  @Post('organizations')
  @ApiOperation({ summary: 'Create an organization with its root division, a first application and its credentials' })
  @ApiCreatedResponse({ type: BootstrapResponse })
  @ApiErrors('unauthorized', 'missing_data', 'argument_error', 'validation')
  createOrganization(@Body() body: CreateOrganizationBody): Promise<BootstrapResponse> {
    return this.tenancy.createOrganization(body);
  }

  @Post('organizations/:id/applications')
  @ApiOperation({ summary: 'Add an application to an organization, with a new api key and secret' })
  @ApiCreatedResponse({ type: CredentialsResponse })
  @ApiErrors('unauthorized', 'missing_data', 'argument_error', 'validation', 'not_found')
  createApplication(
    @Param('id', new IdPipe('organization')) id: number,
    @Body() body: CreateApplicationBody,
  ): Promise<CredentialsResponse> {
    return this.tenancy.createApplication(id, body.application.name);
  }

  @Delete('api_keys/:api_key')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate an api key; every process stops accepting it at once' })
  @ApiOkResponse({ type: StatusOk })
  @ApiErrors('unauthorized', 'not_found')
  async deactivateKey(@Param('api_key') apiKey: string): Promise<StatusOk> {
    if (!(await this.apiKeys.deactivate(apiKey))) throw AppError.notFound('api key');
    return { status: 'ok' };
  }
}
