import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { OrganizationTurns } from './organization-turns.js';

/**
 * Serves an authenticated request in its organization's turn (OrganizationTurns); runs after the api key's guards.
 * The turn ends when the answer is sent or the connection closes. A full line answers 429 at once, with retry-after.
 */
@Injectable()
export class OrganizationTurnGuard implements CanActivate {
  constructor(private readonly turns: OrganizationTurns) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const organizationId = http.getRequest<Request>().tenant?.organizationId;
    if (organizationId === undefined) return true;
    const res = http.getResponse<Response>();
    const turn = this.turns.take(organizationId);
    if (!turn) {
      res.setHeader('retry-after', 1);
      throw new AppError('rate_limited', 'too many requests of this organization in progress; retry in a second');
    }
    const end = await turn;
    if (res.closed) end();
    else res.once('close', end);
    return true;
  }
}
