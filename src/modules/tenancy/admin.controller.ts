import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { BootstrapResponse, CreateApplicationBody, CreateOrganizationBody, CredentialsResponse, StatusOk } from './dto/bootstrap.dto.js';
import { TenancyService } from './tenancy.service.js';

const AUTH = '401 unauthorized without `Authorization: Bearer <ADMIN_TOKEN>` (and always when ADMIN_TOKEN is not set: the admin API is then closed)';
const BODY_ERRORS =
  '400 missing_data when a wrapper or a required member is absent or null; 400 argument_error for a member not listed; ' +
  '400 validation for a wrong type, an empty or over-long name, or an unknown time zone';

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
  @ApiOperation({
    summary: 'Create an organization',
    description:
      'Bootstrap: creates an organization with its root division and a first application, and answers 201 with them and the ' +
      "application's api key and secret. The secret is shown only in this answer. Every /priv route then takes the api key in its " +
      `path and the pair as HTTP Basic credentials. Errors: ${AUTH}; ${BODY_ERRORS}.`,
  })
  @ApiCreatedResponse({ type: BootstrapResponse, description: 'The organization, its first application and their credentials' })
  @ApiErrors('unauthorized', 'rate_limited', 'missing_data', 'argument_error', 'validation')
  createOrganization(@Body() body: CreateOrganizationBody): Promise<BootstrapResponse> {
    return this.tenancy.createOrganization(body);
  }

  @Post('organizations/:id/applications')
  @ApiOperation({
    summary: 'Add an application to an organization',
    description:
      'Creates another application of the organization (another channel or client) with an api key and secret of its own, answered ' +
      `201 (the secret only in this answer). Its key sees the same organization's objects. Errors: ${AUTH}; ${BODY_ERRORS}; ` +
      '404 not_found for an unknown organization.',
  })
  @ApiParam({
    name: 'id',
    schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
    example: 1,
    description: 'The organization id (`organization.id` of POST /admin/v1/organizations); an unknown one answers 404 not_found',
  })
  @ApiCreatedResponse({ type: CredentialsResponse, description: 'The application and its credentials' })
  @ApiErrors('unauthorized', 'rate_limited', 'missing_data', 'argument_error', 'validation', 'not_found')
  createApplication(
    @Param('id', new IdPipe('organization')) id: number,
    @Body() body: CreateApplicationBody,
  ): Promise<CredentialsResponse> {
    return this.tenancy.createApplication(id, body.application.name);
  }

  @Delete('api_keys/:api_key')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Deactivate an api key',
    description:
      'Deactivates an api key for good: every API process stops accepting it at once (its requests answer 401), other keys of the ' +
      `organization keep working. Answers {"status":"ok"}, also for a key already deactivated. Errors: ${AUTH}; 404 not_found for a key that does not exist.`,
  })
  @ApiParam({
    name: 'api_key',
    schema: { type: 'string' },
    example: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b',
    description: 'The api key to deactivate (32 lower-case hex characters, as answered with its secret); any other value answers 404 not_found',
  })
  @ApiOkResponse({ type: StatusOk, description: 'The key is deactivated' })
  @ApiErrors('unauthorized', 'rate_limited', 'not_found')
  async deactivateKey(@Param('api_key') apiKey: string): Promise<StatusOk> {
    if (!(await this.apiKeys.deactivate(apiKey))) throw AppError.notFound('api key');
    return { status: 'ok' };
  }
}
