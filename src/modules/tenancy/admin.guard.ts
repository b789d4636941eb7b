import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { AppError } from '../../common/errors/app-error.js';
import { safeEqual } from './secrets.js';

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. Without ADMIN_TOKEN the admin API is closed. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().header('authorization') ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
    if (!this.config.adminToken) throw new AppError('unauthorized', 'the admin API is disabled: set ADMIN_TOKEN to enable it');
    if (!safeEqual(token, this.config.adminToken)) throw new AppError('unauthorized', 'unauthorized');
    return true;
  }
}
