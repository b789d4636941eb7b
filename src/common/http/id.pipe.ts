import { PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';

const MAX_ID = 2_147_483_647;

/**
 * An integer id from the path (1..2^31-1, the range of our integer keys). Anything else cannot name an object,
 * so it answers `not_found` like an id that does not exist.
 */
export class IdPipe implements PipeTransform<string, number> {
  /** `missing` builds the error for an id that cannot exist (default: `not_found` naming `what`). */
  private readonly missing: () => AppError;

  constructor(what: string, missing?: () => AppError) {
    this.missing = missing ?? (() => AppError.notFound(what));
  }

  transform(value: string): number {
    const id = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!(id >= 1 && id <= MAX_ID)) throw this.missing();
    return id;
  }
}
