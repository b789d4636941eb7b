import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { RateLimiter } from '../../common/auth/rate-limiter.js';
import { checkAdminToken } from './admin-token.js';

/** `Authorization: Bearer <ADMIN_TOKEN>` (admin-token.ts). Without ADMIN_TOKEN the admin API is closed. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: RateLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const token = /^Bearer (.+)$/i.exec(req.header('authorization') ?? '')?.[1] ?? '';
    checkAdminToken(token, req, http.getResponse<Response>(), this.config, this.limiter);
    return true;
  }
}
