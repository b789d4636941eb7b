/**
 * How a job names a stored event: its id and its occurred_at, the event log's partition key (the primary key is the
 * pair). Statements that find a job's events by both probe one month's primary key per event, pruned to the months
 * the job spans when planned; by id alone they would plan and probe every month kept, and on a month that a backlog
 * filled faster than its statistics were refreshed, PostgreSQL took the partial index of pending events instead (a scan
 * of every pending event per job: the events worker ran 3.5× slower; docs/decisions/0014-event-keys.md).
 */
export interface EventKey {
  id: string;
  /** The event's occurred_at in UTC to the microsecond, as OCCURRED_KEY writes it (sorts as it compares). */
  occurredAt: string;
}

/** SQL: a timestamptz column as an EventKey's occurredAt (ISO 8601, UTC, microseconds: exact, and sortable as text). */
export const occurredKey = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The earliest and latest occurredAt of the keys: the range a statement names so that PostgreSQL prunes the other months. */
export function occurredRange(times: string[]): [string, string] {
  let low = times[0];
  let high = times[0];
  for (const t of times) {
    if (t < low) low = t;
    if (t > high) high = t;
  }
  return [low, high];
}

/**
 * SQL: the job's stored events (every column of `events e`, whatever their status), found by key. A statement reads
 * them through a MATERIALIZED CTE and filters status outside it: a status condition on the scan itself lets PostgreSQL
 * choose the partial index of pending events, on an estimate that a backlog makes stale.
 * Parameters: $1 ids, $2 occurred_at of each, $3 and $4 their range (occurredRange).
 */
export const EVENTS_BY_KEY = `SELECT e.* FROM unnest($1::bigint[], $2::timestamptz[]) AS k(id, occurred_at)
           JOIN events e ON e.id = k.id AND e.occurred_at = k.occurred_at
          WHERE e.occurred_at BETWEEN $3::timestamptz AND $4::timestamptz`;

/** The parameters of EVENTS_BY_KEY for these keys. */
export function eventsByKeyParams(keys: EventKey[]): [string[], string[], string, string] {
  const times = keys.map((k) => k.occurredAt);
  return [keys.map((k) => k.id), times, ...occurredRange(times)];
}
