import { QueryFailedError } from 'typeorm';
import { AppError } from '../errors/app-error.js';

/**
 * Turns a unique-index violation into the `validation` error of the field it protects. `fields` maps index names
 * (see migrations) to the dotted field and message a client should see; any other error passes through unchanged.
 */
export function uniqueViolation(fields: Record<string, { field: string; message: string }>) {
  return (error: unknown): never => {
    if (error instanceof QueryFailedError) {
      const driver = error.driverError as { code?: string; constraint?: string };
      const known = driver.code === '23505' && driver.constraint ? fields[driver.constraint] : undefined;
      if (known) throw AppError.validation(known.field, known.message);
    }
    throw error;
  };
}
