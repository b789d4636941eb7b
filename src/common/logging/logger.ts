import { LoggerService } from '@nestjs/common';
import { pino, Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;
export const LOGGER = Symbol('LOGGER');

/** One JSON line per record on stdout. Authorization headers and secrets never reach it (see redact). */
export function createLogger(level: string, service: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['*.authorization', '*.api_secret', '*.secret', '*.password', 'api_secret', 'secret'], censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}

/**
 * Lets Nest's own messages go through the same JSON logger. Nest's `log` level is its start-up chatter (a line per
 * module initialized and per route mapped: about 130 for the API), so it is logged at `debug`; at `info` a process
 * says only that it is listening or ready, and that it stops. Nest's warnings and errors keep their levels. The
 * service's own code logs with pino directly, never through this class.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
