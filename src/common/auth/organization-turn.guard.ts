import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error.js';
import { holdTurn } from './current-turn.js';
import { OrganizationTurns } from './organization-turns.js';

/**
 * Serves an authenticated request in its turn (OrganizationTurns); runs after the api key's guards. The turn ends when
 * the answer is sent or the connection closes. When the organization's waiting requests already hold
 * ORGANIZATION_BYTES_WAITING, the request answers 429 at once, with retry-after.
 */
/** The 429's message (also the OpenAPI document's example). */
export const ORGANIZATION_BUSY = "this organization's requests waiting in this API process already hold ORGANIZATION_BYTES_WAITING bytes; retry in a second";

@Injectable()
export class OrganizationTurnGuard implements CanActivate {
  constructor(private readonly turns: OrganizationTurns) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const organizationId = req.tenant?.organizationId;
    if (organizationId === undefined) return true;
    const res = http.getResponse<Response>();
    const taken = this.turns.take(organizationId, Number(req.header('content-length')) || 0);
    if (!taken) {
      res.setHeader('retry-after', 1);
      throw new AppError('rate_limited', ORGANIZATION_BUSY);
    }
    const turn = await taken;
    holdTurn(turn);
    if (res.closed) turn.end();
    else res.once('close', turn.end);
    return true;
  }
}
