import type { INestApplication } from '@nestjs/common';

/**
 * Connections the kernel keeps waiting for the API to accept (bounded by net.core.somaxconn). Node's default, 511,
 * drops the SYNs of a burst past it while the event loop is busy: 6 of 1,000 connections opened at once timed out
 * connecting on a loaded machine.
 */
export const LISTEN_BACKLOG = 4096;

type Listen = (port: number, ...args: Array<string | number>) => Promise<unknown>;

/** app.listen with LISTEN_BACKLOG (Nest passes the arguments after the port on to the HTTP server's listen). */
export function listen(app: INestApplication, port: number, host?: string): Promise<unknown> {
  const listenOn = app.listen.bind(app) as unknown as Listen;
  return host === undefined ? listenOn(port, LISTEN_BACKLOG) : listenOn(port, host, LISTEN_BACKLOG);
}
