/**
 * Every error the service answers with has a code from the contract's table. Use cases and guards throw AppError;
 * one filter (error.filter.ts) turns it into the envelope and the HTTP status. Nothing else decides a status.
 */
export const ERROR_STATUS = {
  unauthorized: 401,
  missing_data: 400,
  missing_event_data: 400,
  argument_error: 400,
  validation: 400,
  invalid_json: 400,
  not_found: 404,
  No_active_campaign_found: 404,
  duplicate_transaction: 409,
  not_available: 400,
  failed_to_perform: 422,
  payload_too_large: 413,
  rate_limited: 429,
  service_unavailable: 503,
  insufficient_points: 422,
  already_reversed: 409,
  not_processed_yet: 409,
  already_ended: 409,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Members answered beside `errors` (a behavior batch answers every behavior with its own errors). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static notFound(what: string): AppError {
    return new AppError('not_found', `${what} not found`);
  }

  static validation(field: string, message: string): AppError {
    return new AppError('validation', `${field} ${message}`, [{ field, message }]);
  }
}
