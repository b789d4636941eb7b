import { PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';
import { parseCanonicalInteger } from '../validation/canonical-integer.js';

const MAX_ID = 2_147_483_647;

/**
 * An integer id from the path: canonical decimal (contract §18) from 1 to 2^31-1, the range of our integer keys.
 * Anything else (`01`, `1.0`, `+1`, `1e0`, `0x1`, ` 1`) cannot name an object, so it answers `not_found` like an id
 * that does not exist, never the object its number would name.
 */
export class IdPipe implements PipeTransform<string, number> {
  /** `missing` builds the error for an id that cannot exist (default: `not_found` naming `what`). */
  private readonly missing: () => AppError;

  constructor(what: string, missing?: () => AppError) {
    this.missing = missing ?? (() => AppError.notFound(what));
  }

  transform(value: string): number {
    const id = parseCanonicalInteger(value);
    if (id === null || id < 1 || id > MAX_ID) throw this.missing();
    return id;
  }
}
