import { AppError, type ErrorDetail } from '../../common/errors/app-error.js';
import { flatObjectProblem, isIsoDatetime, toDate } from '../../common/validation/validators.js';
import type { FlatValue } from '../../engine/index.js';
import { UUID } from '../../common/validation/uuid.js';
import { isStorableText, UNSTORABLE_MESSAGE } from '../../common/validation/request-input.js';
import { occurredKey } from '../evaluation/index.js';
import { eventNameProblem, membersProblem } from '../../common/validation/event-limits.js';

export const MAX_V2_EVENTS = 1000;
const MEMBERS = new Set(['name', 'by', 'user_id', 'external_id', 'occurred_at', 'transaction_id', 'context']);

/** A V2 event object once validated (contract §9). */
export interface V2Event {
  name: string;
  count: number;
  userId: string | null;
  externalId: string | null;
  occurredAt: Date;
  transactionId: string | null;
  context: Record<string, FlatValue>;
  /** context.division_id as sent; judged by the use case, and only with multi-org on. */
  division: string | null;
}

function problem(event: unknown, at: string): ErrorDetail | null {
  const fail = (field: string, message: string) => ({ field: `${at}${field ? `.${field}` : ''}`, message });
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return fail('', 'must be an event object');
  const e = event as Record<string, unknown>;
  if (typeof e.name !== 'string' || e.name.length === 0 || e.name.length > 255) return fail('name', 'is missing (a string of 1 to 255 characters)');
  if (e.user_id === undefined && e.external_id === undefined) return fail('user_id', 'is missing: user_id or external_id is required');
  if (e.user_id !== undefined && (typeof e.user_id !== 'string' || !UUID.test(e.user_id))) return fail('user_id', 'must be a customer id (UUID)');
  if (e.external_id !== undefined && (typeof e.external_id !== 'string' || e.external_id.length === 0 || e.external_id.length > 255)) {
    return fail('external_id', 'must be a string of 1 to 255 characters');
  }
  if (e.by !== undefined) {
    const by = typeof e.by === 'string' && e.by.trim() !== '' ? Number(e.by) : e.by;
    if (typeof by !== 'number' || !Number.isFinite(by) || by <= 0 || by > 1_000_000) return fail('by', 'must be a positive number (at most 1,000,000)');
  }
  if (e.occurred_at !== undefined && !isIsoDatetime(e.occurred_at)) return fail('occurred_at', 'must be an ISO 8601 datetime');
  if (e.transaction_id !== undefined && (typeof e.transaction_id !== 'string' || e.transaction_id.length === 0 || e.transaction_id.length > 255)) {
    return fail('transaction_id', 'must be a string of 1 to 255 characters');
  }
  if (e.context !== undefined) {
    const bad = flatObjectProblem(e.context);
    if (bad) return fail('context', bad);
  }
  // PostgreSQL refuses NUL (and jsonb an unpaired surrogate): such text is an invalid event, not a 500.
  for (const field of ['name', 'external_id', 'transaction_id'] as const) {
    if (typeof e[field] === 'string' && !isStorableText(e[field])) return fail(field, UNSTORABLE_MESSAGE);
  }
  for (const [key, value] of Object.entries((e.context ?? {}) as Record<string, unknown>)) {
    if (!isStorableText(key) || (typeof value === 'string' && !isStorableText(value))) return fail(`context.${key}`, UNSTORABLE_MESSAGE);
  }
  return null;
}

/** What contract §18 refuses in a well-formed event (`validation`): a prototype key as a name, a string over the limit. */
function limitProblem(event: Record<string, unknown>, at: string): ErrorDetail | null {
  const name = eventNameProblem(event.name as string);
  if (name) return { field: `${at}.name`, message: name };
  const member = event.context === undefined ? null : membersProblem(event.context as object);
  return member && { field: `${at}.context.${member[0]}`, message: member[1] };
}

/**
 * The events of a V2 body, validated all at once: any invalid event rejects the request (400 missing_data naming
 * each index and field), unknown members are argument_error, and more than 1,000 events is payload_too_large. Events
 * well formed but beyond contract §18's limits (names, string lengths) are then 400 validation, naming each.
 */
export function parseV2Body(body: unknown, now: number): V2Event[] {
  const raw = (body as { events?: unknown } | null)?.events;
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) throw new AppError('missing_data', 'missing event data: send events');
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > MAX_V2_EVENTS) throw new AppError('payload_too_large', `at most ${MAX_V2_EVENTS} events per request, got ${list.length}`);
  const extra = Object.keys(body as object).filter((k) => k !== 'events');
  const unknown = [
    ...extra.map((k) => ({ field: k, message: 'is not a known attribute' })),
    ...list.flatMap((e, i) =>
      typeof e === 'object' && e !== null ? Object.keys(e).filter((k) => !MEMBERS.has(k)).map((k) => ({ field: `events[${i}].${k}`, message: 'is not a known attribute' })) : [],
    ),
  ];
  if (unknown.length) throw new AppError('argument_error', `unknown attributes: ${unknown.map((u) => u.field).join(', ')}`, unknown);
  const problems = list.map((e, i) => problem(e, `events[${i}]`)).filter((p): p is ErrorDetail => p !== null);
  if (problems.length) throw new AppError('missing_data', problems.map((p) => `${p.field} ${p.message}`).join('; '), problems);
  const limits = list.map((e, i) => limitProblem(e as Record<string, unknown>, `events[${i}]`)).filter((p): p is ErrorDetail => p !== null);
  if (limits.length) throw new AppError('validation', limits.map((p) => `${p.field} ${p.message}`).join('; '), limits);
  return list.map((item) => {
    const e = item as Record<string, unknown>;
    const context = (e.context ?? {}) as Record<string, FlatValue>;
    return {
      name: e.name as string,
      count: e.by === undefined ? 1 : Number(e.by),
      userId: (e.user_id as string | undefined) ?? null,
      externalId: (e.external_id as string | undefined) ?? null,
      occurredAt: e.occurred_at === undefined ? new Date(now) : toDate(e.occurred_at as string),
      transactionId: (e.transaction_id as string | undefined) ?? null,
      context,
      division: context.division_id === undefined ? null : String(context.division_id),
    };
  });
}

/**
 * The one statement that stores a V2 batch: its idempotency keys claimed, its events stored pending with their
 * customers resolved, answering each stored event's key and customer. $1 organization, $2 api key, $3 request id,
 * $4 the events as JSON (user_id, external_id, transaction_id, name, count, context, division_id, occurred_at).
 * The acceptance ceiling of bench:v2 runs it too.
 */
export const STORE_V2_EVENTS = `WITH t AS (
         -- first: the batch's first event with its transaction id (a later one with the same id is a duplicate).
         SELECT *, row_number() OVER (PARTITION BY transaction_id ORDER BY n) = 1 AS first
           FROM ROWS FROM (json_to_recordset($4::json) AS (user_id uuid, external_id text, transaction_id text, name text, count numeric,
                  context jsonb, division_id int, occurred_at timestamptz))
                WITH ORDINALITY AS t(user_id, external_id, transaction_id, name, count, context, division_id, occurred_at, n)
       ),
       -- Idempotency keys are claimed in event_transactions (the partitioned log cannot hold a unique index on them):
       -- a key already used, or used earlier in this batch, stores nothing.
       claimed AS (
         INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at)
         SELECT $2, t.transaction_id, t.occurred_at FROM t WHERE t.transaction_id IS NOT NULL AND t.first
         ON CONFLICT DO NOTHING
         RETURNING transaction_id
       )
       INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, context, division_id,
                           occurred_at, status, request_id)
       SELECT $1, $2,
              -- Two lookups, each on an index (a CASE inside one WHERE scanned the customers table per event).
              CASE WHEN t.user_id IS NOT NULL
                   THEN (SELECT c.id FROM customers c WHERE c.id = t.user_id AND c.organization_id = $1 AND c.erased_at IS NULL)
                   ELSE (SELECT c.id FROM customers c WHERE c.organization_id = $1 AND c.external_id = t.external_id) END,
              coalesce(t.external_id, t.user_id::text), 'v2', t.transaction_id, t.name, t.count, t.context,
              t.division_id, t.occurred_at, 'pending', $3
         FROM t
        WHERE t.transaction_id IS NULL OR (t.first AND t.transaction_id IN (SELECT transaction_id FROM claimed))
        ORDER BY t.n
       RETURNING id, customer_id AS "customerId", organization_id AS "organizationId", ${occurredKey('occurred_at')} AS "occurredAt"`;
