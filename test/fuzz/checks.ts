import type { RawRequest, RawResponse } from './client.js';

/** The contract's error codes (§2) and their HTTP statuses, plus invalid_json. Written out here, not imported from src. */
export const ERROR_CODES: Record<string, number> = {
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
  internal_error: 500,
};

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class AnswerError extends Error {}

function describe(req: RawRequest, res: RawResponse): string {
  const body = req.body === undefined ? '' : ` body ${JSON.stringify(req.body.length > 300 ? `${req.body.slice(0, 300)}...(${req.body.length} chars)` : req.body)}`;
  return `${req.method} ${req.path.slice(0, 300)}${body} -> ${res.status} ${res.text.slice(0, 500)}`;
}

/**
 * What holds for every answer: no 5xx; an x-request-id (the caller's own when sane, else a new UUID); every answer
 * that is not 2xx is the error envelope with a code from the table and that code's status, in JSON; and (with the
 * rate limit raised for the fuzzer) no rate_limited answer that would hide the real one.
 */
export function checkAnswer(req: RawRequest, res: RawResponse): void {
  const fail = (why: string): never => {
    throw new AnswerError(`${why}: ${describe(req, res)}`);
  };
  if (res.status >= 500) fail('server error');
  const id = res.headers['x-request-id'];
  if (typeof id !== 'string') fail('no x-request-id');
  // What the server reads: the value without surrounding spaces and tabs (HTTP's only whitespace; not NBSP).
  const sent = req.headers['x-request-id']?.replace(/^[ \t]+|[ \t]+$/g, '');
  if (sent !== undefined && SANE_REQUEST_ID.test(sent) && id !== sent) fail(`x-request-id ${String(id)} is not the one sent`);
  if ((sent === undefined || !SANE_REQUEST_ID.test(sent)) && !UUID.test(id as string)) fail(`x-request-id ${String(id)} is not a new UUID`);
  if (req.method === 'HEAD' || (res.status >= 200 && res.status < 300)) return;
  if (!/^application\/json\b/.test(String(res.headers['content-type']))) fail('an error answer that is not JSON');
  const body = res.json as { status?: unknown; errors?: Record<string, unknown> } | undefined;
  if (typeof body !== 'object' || body === null || body.status !== 'error' || typeof body.errors !== 'object' || body.errors === null) fail('no error envelope');
  const { code, message, details, ...rest } = body!.errors!;
  if (typeof code !== 'string' || !(code in ERROR_CODES)) fail(`code ${String(code)} is not in the contract's table`);
  if (ERROR_CODES[code as string] !== res.status) fail(`code ${String(code)} answered with HTTP ${res.status}`);
  if (code === 'rate_limited') fail('rate limited (the fuzzer raises the limit: this would hide the answer)');
  if (typeof message !== 'string' || message.length === 0) fail('an error without a message');
  if (Object.keys(rest).length > 0) fail(`unexpected members in errors: ${Object.keys(rest).join(', ')}`);
  if (details !== undefined) {
    const ok = Array.isArray(details) && details.every((d: unknown) => typeof d === 'object' && d !== null && typeof (d as { field?: unknown }).field === 'string' && typeof (d as { message?: unknown }).message === 'string');
    if (!ok) fail('details that are not [{field, message}]');
  }
}

/** Rejected: any answer but a success (redirects are not answered by this API). */
export function isRejected(res: RawResponse): boolean {
  return res.status < 200 || res.status >= 300;
}
