import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreateUserBody, NotificationsResponse, TimelineResponse, UpdateUserBody, UserResponse } from './dto/user.dto.js';
import { CustomersService } from './customers.service.js';

@ApiTags('customers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key')
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

  @Post('users')
  @ApiOperation({ summary: 'Create a customer' })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateUserBody): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.create(tenant, body.user) };
  }

  @Get('users/:user_id')
  @ApiOperation({ summary: 'Get a customer by user_id' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.get(tenant, { userId }) };
  }

  @Get('external/users/:external_id')
  @ApiOperation({ summary: 'Get a customer by external_id' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors('not_found')
  async getExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.get(tenant, { externalId }) };
  }

  @Put('users/:user_id')
  @ApiOperation({ summary: 'Update a customer by user_id (partial: only the members sent change)' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found')
  async update(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Body() body: UpdateUserBody): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.update(tenant, { userId }, body.user) };
  }

  @Put('external/users/:external_id')
  @ApiOperation({ summary: 'Update a customer by external_id (partial: only the members sent change)' })
  @ApiOkResponse({ type: UserResponse })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found')
  async updateExternal(
    @CurrentTenant() tenant: Tenant,
    @Param('external_id') externalId: string,
    @Body() body: UpdateUserBody,
  ): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.update(tenant, { externalId }, body.user) };
  }

  @Get('users/:user_id/timeline')
  @ApiOperation({ summary: "A customer's events, newest first, with their processing status and points earned" })
  @ApiOkResponse({ type: TimelineResponse })
  @ApiErrors('validation', 'not_found')
  timeline(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<TimelineResponse> {
    return this.customers.timeline(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/timeline')
  @ApiOperation({ summary: "A customer's events by external_id, newest first" })
  @ApiOkResponse({ type: TimelineResponse })
  @ApiErrors('validation', 'not_found')
  timelineExternal(
    @CurrentTenant() tenant: Tenant,
    @Param('external_id') externalId: string,
    @Query() query: PageQuery,
  ): Promise<TimelineResponse> {
    return this.customers.timeline(tenant, { externalId }, query);
  }

  @Get('users/:user_id/notifications')
  @ApiOperation({ summary: "A customer's notifications (triggered creatives), newest first" })
  @ApiOkResponse({ type: NotificationsResponse })
  @ApiErrors('validation', 'not_found')
  notifications(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<NotificationsResponse> {
    return this.customers.notificationsOf(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/notifications')
  @ApiOperation({ summary: "A customer's notifications by external_id, newest first" })
  @ApiOkResponse({ type: NotificationsResponse })
  @ApiErrors('validation', 'not_found')
  notificationsExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Query() query: PageQuery): Promise<NotificationsResponse> {
    return this.customers.notificationsOf(tenant, { externalId }, query);
  }
}
