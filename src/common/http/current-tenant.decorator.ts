import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../errors/app-error.js';
import type { Tenant } from './request-context.js';

/** The organization, application and api key of an authenticated request. */
export const CurrentTenant = createParamDecorator((_data: unknown, context: ExecutionContext): Tenant => {
  const tenant = context.switchToHttp().getRequest<Request>().tenant;
  if (!tenant) throw new AppError('unauthorized', 'unauthorized');
  return tenant;
});
