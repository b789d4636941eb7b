import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ApiExternalIdParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { CreateUserBody, NotificationsResponse, TimelineResponse, UpdateUserBody, UserResponse } from './dto/user.dto.js';
import { CustomersService } from './customers.service.js';
import { TierHistoryResponse, TierStandingResponse } from './dto/tier-standing.dto.js';

const WRITE_ERRORS =
  'Errors: 400 missing_data when the `user` wrapper or a required member is absent or null; 400 argument_error for a member ' +
  'not listed here; 400 validation for a wrong type or value (an unknown time zone, a division that is not a live division ' +
  'of the organization, an external_id another customer of the organization has).';
const UPDATE =
  'Partial: only the members sent change (tags and attributes are replaced as a whole; an empty user changes nothing); points and tier ' +
  'are never written here, only by events. Answers the customer as it is now. ';
const TIER =
  "The customer's tier and what it stands on: the organization's tier policy (basis), the qualifying points, the points that keep " +
  'the tier, and the next tier up with the points still needed. Under the lifetime basis (the default) the qualifying points are ' +
  'the lifetime points and period, review_at and tier_after_review are null. Under the period basis: the running period, its ' +
  'qualifying points, when the next review takes effect and the tier it would give with the points so far; a review that is due ' +
  "is answered before the workers have written it. 404 not_found when it is not a customer of the api key's organization.";
const PAGE = '`limit` (1-100, default 10) and `page` (from 1) page it; out of range is 400 validation. ';
const TIER_HISTORY =
  "Every move of the customer's tier, newest first: from and to (null: no tier), why (points, outcome, review, policy, " +
  `tier_deleted) and when it took effect. Written when an evaluation, a reversal or a review moves the tier. ${PAGE}` +
  "404 not_found when it is not a customer of the api key's organization.";

@ApiTags('customers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key')
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

  @Post('users')
  @ApiOperation({
    summary: 'Create a customer',
    description:
      'Creates a customer of the organization. `external_id` (your own id) is required; `time_zone` defaults to the ' +
      "organization's, `division_id` to its root division, `tags` and `attributes` to empty. Answers 201 with the customer, " +
      'including `id`, the UUID the service assigned: the `user_id` of the routes under .../users/{user_id}. ' +
      WRITE_ERRORS,
  })
  @ApiCreatedResponse({ type: UserResponse, description: 'The customer created, with 0 points and no tier' })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateUserBody): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.create(tenant, body.user) };
  }

  @Get('users/:user_id')
  @ApiOperation({
    summary: 'Get a customer by user_id',
    description:
      "Answers the customer named by its UUID (user_id): profile, points and current tier. 404 not_found when it is not a customer of the api key's organization.",
  })
  @ApiUserIdParam()
  @ApiOkResponse({ type: UserResponse, description: 'The customer' })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.get(tenant, { userId }) };
  }

  @Get('external/users/:external_id')
  @ApiOperation({
    summary: 'Get a customer by external_id',
    description:
      "Answers the customer named by your own id for it (external_id): profile, points and current tier. 404 not_found when no customer of the api key's organization has it.",
  })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: UserResponse, description: 'The customer' })
  @ApiErrors('not_found')
  async getExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.get(tenant, { externalId }) };
  }

  @Get('users/:user_id/tier')
  @ApiOperation({ summary: "A customer's tier standing, by user_id", description: TIER })
  @ApiUserIdParam()
  @ApiOkResponse({ type: TierStandingResponse, description: "The customer's tier standing" })
  @ApiErrors('not_found')
  async tier(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string): Promise<TierStandingResponse> {
    return { status: 'ok', ...(await this.customers.tier(tenant, { userId })) };
  }

  @Get('external/users/:external_id/tier')
  @ApiOperation({ summary: "A customer's tier standing, by external_id", description: TIER })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: TierStandingResponse, description: "The customer's tier standing" })
  @ApiErrors('not_found')
  async tierExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string): Promise<TierStandingResponse> {
    return { status: 'ok', ...(await this.customers.tier(tenant, { externalId })) };
  }

  @Get('users/:user_id/tier/history')
  @ApiOperation({ summary: "A customer's tier history, by user_id", description: TIER_HISTORY })
  @ApiUserIdParam()
  @ApiOkResponse({ type: TierHistoryResponse, description: "A page of the customer's tier moves, newest first" })
  @ApiErrors('validation', 'not_found')
  tierHistory(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<TierHistoryResponse> {
    return this.customers.tierHistory(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/tier/history')
  @ApiOperation({ summary: "A customer's tier history, by external_id", description: TIER_HISTORY })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: TierHistoryResponse, description: "A page of the customer's tier moves, newest first" })
  @ApiErrors('validation', 'not_found')
  tierHistoryExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Query() query: PageQuery): Promise<TierHistoryResponse> {
    return this.customers.tierHistory(tenant, { externalId }, query);
  }

  @Put('users/:user_id')
  @ApiOperation({
    summary: 'Update a customer by user_id',
    description: `Updates the customer named by its UUID (user_id). ${UPDATE}${WRITE_ERRORS} 404 not_found when it is not a customer of the organization.`,
  })
  @ApiUserIdParam()
  @ApiOkResponse({ type: UserResponse, description: 'The customer after the update' })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found')
  async update(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Body() body: UpdateUserBody): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.update(tenant, { userId }, body.user) };
  }

  @Put('external/users/:external_id')
  @ApiOperation({
    summary: 'Update a customer by external_id',
    description:
      `Updates the customer named by your own id for it (external_id); the body may change that id too. ${UPDATE}${WRITE_ERRORS} ` +
      '404 not_found when no customer of the organization has that external_id.',
  })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: UserResponse, description: 'The customer after the update' })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found')
  async updateExternal(
    @CurrentTenant() tenant: Tenant,
    @Param('external_id') externalId: string,
    @Body() body: UpdateUserBody,
  ): Promise<UserResponse> {
    return { status: 'ok', user: await this.customers.update(tenant, { externalId }, body.user) };
  }

  @Get('users/:user_id/timeline')
  @ApiOperation({
    summary: "A customer's events, by user_id",
    description:
      "The customer's events, newest first: each with its name, when it happened, its division, its processing status (and why it " +
      `did not progress), the points it earned and the notifications it produced. ${PAGE}404 not_found for an unknown customer.`,
  })
  @ApiUserIdParam()
  @ApiOkResponse({ type: TimelineResponse, description: "A page of the customer's events, newest first" })
  @ApiErrors('validation', 'not_found')
  timeline(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<TimelineResponse> {
    return this.customers.timeline(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/timeline')
  @ApiOperation({
    summary: "A customer's events, by external_id",
    description:
      'The same as the timeline by user_id, for the customer named by your own id for it: its events newest first, with their ' +
      `status, points earned and notifications. ${PAGE}404 not_found for an unknown customer.`,
  })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: TimelineResponse, description: "A page of the customer's events, newest first" })
  @ApiErrors('validation', 'not_found')
  timelineExternal(
    @CurrentTenant() tenant: Tenant,
    @Param('external_id') externalId: string,
    @Query() query: PageQuery,
  ): Promise<TimelineResponse> {
    return this.customers.timeline(tenant, { externalId }, query);
  }

  @Get('users/:user_id/notifications')
  @ApiOperation({
    summary: "A customer's notifications, by user_id",
    description:
      'The notifications stored for the customer, newest first. A notification is produced each time the customer completes a ' +
      'behavior, by every live triggered creative of that behavior whose creative group targets the customer; it is shown here ' +
      `exactly as the V1 event answer showed it (also those of V2 and async events, whose answer could not). ${PAGE}404 not_found for an unknown customer.`,
  })
  @ApiUserIdParam()
  @ApiOkResponse({ type: NotificationsResponse, description: "A page of the customer's notifications, newest first" })
  @ApiErrors('validation', 'not_found')
  notifications(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<NotificationsResponse> {
    return this.customers.notificationsOf(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/notifications')
  @ApiOperation({
    summary: "A customer's notifications, by external_id",
    description:
      'The same as the notifications by user_id, for the customer named by your own id for it: the stored notifications, newest ' +
      `first. ${PAGE}404 not_found for an unknown customer.`,
  })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: NotificationsResponse, description: "A page of the customer's notifications, newest first" })
  @ApiErrors('validation', 'not_found')
  notificationsExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Query() query: PageQuery): Promise<NotificationsResponse> {
    return this.customers.notificationsOf(tenant, { externalId }, query);
  }
}
