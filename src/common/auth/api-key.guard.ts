import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../errors/app-error.js';
import { ApiKeyService } from '../../modules/tenancy/api-key.service.js';

/** Parses `Authorization: Basic base64(api_key:api_secret)`; null when absent or malformed. */
export function basicCredentials(header: string | undefined): { key: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/**
 * Every /priv route: the :api_key path segment and HTTP Basic `api_key:api_secret` must name the same active key
 * with its secret. Unknown key, inactive key, missing or wrong secret all answer the same 401.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly apiKeys: ApiKeyService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const pathKey = req.params.api_key;
    const credentials = basicCredentials(req.header('authorization'));
    const denied = () => new AppError('unauthorized', 'unknown or inactive api key, or missing or wrong api secret');
    if (typeof pathKey !== 'string' || !credentials || credentials.key !== pathKey || credentials.secret.length === 0) throw denied();
    const tenant = await this.apiKeys.verify(pathKey, credentials.secret);
    if (!tenant) throw denied();
    req.tenant = tenant;
    return true;
  }
}
