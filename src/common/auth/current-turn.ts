import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';

/** What work deep in a request may do with the request's turn (OrganizationTurns): give it back while it waits. */
export interface PausableTurn {
  pause(): void;
  resume(): Promise<void>;
}

const scope = new AsyncLocalStorage<{ turn?: PausableTurn }>();

/** Runs `work` in a scope of its own, where holdTurn puts the turn that currentTurn answers. */
export function inTurnScope<T>(work: () => T): T {
  return scope.run({}, work);
}

/** Express middleware (after the body parser): a scope per request, where the turn guard puts the request's turn. */
export function turnScope() {
  return (_req: Request, _res: Response, next: NextFunction): void => inTurnScope(next);
}

/** Makes `turn` the current request's (called by the turn guard). */
export function holdTurn(turn: PausableTurn): void {
  const store = scope.getStore();
  if (store) store.turn = turn;
}

/** The turn of the request this code runs for; undefined outside a request (a worker's job, a sweeper). */
export function currentTurn(): PausableTurn | undefined {
  return scope.getStore()?.turn;
}
