import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiParam } from '@nestjs/swagger';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { OrganizationTurnGuard } from './organization-turn.guard.js';
import { RateLimitGuard } from './rate-limit.guard.js';

/**
 * The one way to protect a /priv route: applies the api key guard (with its failed-attempt limit), the request rate
 * limit of the authenticated key, and the organization's share of the process (OrganizationTurns), and documents the Basic
 * security scheme, the :api_key path segment and the 401/429 answers in Swagger, so code and docs cannot drift.
 */
export function ApiKeyAuth(): ClassDecorator & MethodDecorator {
  return applyDecorators(
    UseGuards(ApiKeyGuard, RateLimitGuard, OrganizationTurnGuard),
    ApiBasicAuth('api_key'),
    ApiParam({ name: 'api_key', type: String, description: 'Application api key; HTTP Basic credentials are api_key:api_secret' }),
    ApiErrors('unauthorized', 'rate_limited'),
  );
}
