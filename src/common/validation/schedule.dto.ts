import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import type { Status } from '../../engine/index.js';
import { IsDatetime, Optional, Required } from './validators.js';

// The scheduling members that campaigns, line items, creative groups and creatives share (name, status, starts_at,
// ends_at): the same checks everywhere; each route gives its own Swagger example and description.

/** The statuses of a campaign, line item, creative group or creative. */
export const STATUSES: Status[] = ['draft', 'inreview', 'live', 'paused', 'completed'];

/**
 * The decorators as if written one above the other over the member. TypeScript applies the lowest first and
 * applyDecorators the first first, hence the reversal: it keeps the validators' order, and so which failed check a
 * field's error message names.
 */
function member(...decorators: PropertyDecorator[]): PropertyDecorator {
  return applyDecorators(...decorators.toReversed());
}

const required = (api: ApiPropertyOptions) => [ApiProperty(api), Required()];
const optional = (api: ApiPropertyOptions) => [ApiPropertyOptional(api), Optional()];

/** `name`: a string of 1-255 characters; `more` are checks below the length. */
export const RequiredName = (api: ApiPropertyOptions, ...more: PropertyDecorator[]) =>
  member(...required(api), IsString(), Length(1, 255), ...more);
export const OptionalName = (api: ApiPropertyOptions) => member(...optional(api), IsString(), Length(1, 255));

/** `status`: one of STATUSES. */
export const RequiredStatus = (api: ApiPropertyOptions) => member(...required({ enum: STATUSES, ...api }), IsIn(STATUSES));
export const OptionalStatus = (api: ApiPropertyOptions) => member(...optional({ enum: STATUSES, ...api }), IsIn(STATUSES));

/** `starts_at`, `ends_at`: an ISO 8601 datetime. */
export const RequiredDatetime = (api: ApiPropertyOptions) => member(...required(api), IsDatetime());
export const OptionalDatetime = (api: ApiPropertyOptions) => member(...optional(api), IsDatetime());

/** Members of the answers, with the same examples in every view. */
export const ApiStatus = () => ApiProperty({ enum: STATUSES, example: 'live' });
export const ApiStartsAt = () => ApiProperty({ type: String, format: 'date-time', example: '2026-03-01T00:00:00.000Z' });
export const ApiEndsAt = () => ApiProperty({ type: String, format: 'date-time', example: '2026-06-01T00:00:00.000Z' });
/** `created_at`, `updated_at`. */
export const ApiTimestamp = () => ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z' });
/** `deleted_at` of a line item, creative group or creative: present only on the answer of a delete. */
export const ApiDeletedAt = () =>
  ApiPropertyOptional({ type: String, format: 'date-time', example: '2026-01-06T10:00:00.000Z', description: 'Only on the answer of a delete' });
