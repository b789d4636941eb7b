/**
 * The reads of the soak's books (books.ts), each over one organization ($1) of the soak's own database. Read only;
 * every statement is a plain SELECT, so the checks can run on a database nobody writes to any more.
 */

/** A ledger row that is a credit, whatever its reason (perform's included): as src/modules/points/ledger-backfill.repository.ts says. */
export const CREDIT = `l.amount > 0 AND l.reason NOT IN ('debit', 'expired', 'reversal')`;

/** A stored event's completions (its `result.completions`), an empty array when it has none. */
const COMPLETIONS = `CASE WHEN jsonb_typeof(e.result->'completions') = 'array' THEN e.result->'completions' ELSE '[]'::jsonb END`;

/** The submission marker of an event: V1 carries it among the attributes, V2 in the context. */
export const MARKERS = `SELECT coalesce(e.attributes->>'soak_id', e.context->>'soak_id') AS marker, count(*)::int AS n
    FROM events e WHERE e.organization_id = $1
   GROUP BY 1`;

/** Events by (api key, transaction id): rows, submissions (request ids), perform rows, and whether the key is claimed. */
export const EVENT_TRANSACTIONS = `SELECT e.api_key_id, e.transaction_id, count(*)::int AS n, count(DISTINCT e.request_id)::int AS submissions,
         count(*) FILTER (WHERE e.source = 'perform')::int AS performs,
         EXISTS (SELECT 1 FROM event_transactions t WHERE t.api_key_id = e.api_key_id AND t.transaction_id = e.transaction_id) AS claimed
    FROM events e WHERE e.organization_id = $1 AND e.transaction_id IS NOT NULL
   GROUP BY e.api_key_id, e.transaction_id`;

/** Idempotency keys of the organization's api keys claimed without any event stored under them. */
export const CLAIMED_WITHOUT_EVENTS = `SELECT t.api_key_id, t.transaction_id FROM event_transactions t
    JOIN api_keys k ON k.id = t.api_key_id AND k.organization_id = $1
   WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.api_key_id = t.api_key_id AND e.transaction_id = t.transaction_id AND e.occurred_at = t.occurred_at)`;

/** Debit entries by transaction id: how many, and their sum. */
export const DEBITS = `SELECT l.transaction_id, count(*)::int AS n, sum(l.amount)::bigint AS amount
    FROM points_ledger l WHERE l.organization_id = $1 AND l.reason = 'debit' AND l.transaction_id IS NOT NULL
   GROUP BY 1`;

/** Reversals, with the ledger entries of each (the entry names the transaction in `source`, not in `transaction_id`). */
export const REVERSALS = `SELECT r.transaction_id, r.api_key_id, r.customer_id, r.points, r.events, r.achievements, r.created_at,
         (SELECT count(*)::int FROM points_ledger l WHERE l.customer_id = r.customer_id AND l.reason = 'reversal' AND l.source->>'transaction_id' = r.transaction_id) AS entries,
         (SELECT coalesce(sum(l.amount), 0)::bigint FROM points_ledger l WHERE l.customer_id = r.customer_id AND l.reason = 'reversal' AND l.source->>'transaction_id' = r.transaction_id) AS amount
    FROM event_reversals r WHERE r.organization_id = $1`;

/** Events by status. */
export const EVENT_STATUSES = `SELECT e.status, count(*)::int AS n FROM events e WHERE e.organization_id = $1 GROUP BY 1`;

/**
 * Events not processed exactly once: still pending, failed (out of attempts), rejected (no customer: the soak names
 * only existing customers), processed without a time, or marked more than once (a worker marks a pending event once).
 */
export const UNSETTLED_EVENTS = `SELECT e.id::text, e.status, e.reason, e.source, e.attempts, e.processed_at, e.created_at,
         coalesce(e.attributes->>'soak_id', e.context->>'soak_id') AS marker
    FROM events e
   WHERE e.organization_id = $1
     AND (e.status IN ('pending', 'failed', 'rejected') OR (e.status IN ('processed', 'stored') AND e.processed_at IS NULL) OR e.attempts > 1)
   ORDER BY e.id LIMIT 1000`;

/** Events whose ledger credits differ from the points they say they earned (as test/faults/support/books.ts). */
export const UNBALANCED_EVENTS = `SELECT e.id::text, e.points_earned::bigint AS earned, coalesce(sum(l.amount), 0)::bigint AS credited
    FROM events e LEFT JOIN points_ledger l ON l.event_id = e.id
   WHERE e.organization_id = $1
   GROUP BY e.id, e.points_earned HAVING coalesce(sum(l.amount), 0) <> e.points_earned
   ORDER BY e.id LIMIT 1000`;

/**
 * Per customer: the balances, the ledger's sum, the credits not reversed, all credits, the reversal entries, what is
 * left to expire, and the lowest running sum of the ledger in id order (the order the customer lock wrote it in).
 */
export const CUSTOMER_BOOKS = `WITH running AS (
         SELECT l.customer_id, sum(l.amount) OVER (PARTITION BY l.customer_id ORDER BY l.id) AS running
           FROM points_ledger l WHERE l.organization_id = $1
       ), lowest AS (
         SELECT customer_id, min(running)::bigint AS lowest FROM running GROUP BY 1
       ), sums AS (
         SELECT l.customer_id, sum(l.amount)::bigint AS ledger,
                coalesce(sum(l.amount) FILTER (WHERE ${CREDIT} AND l.reversed_at IS NULL), 0)::bigint AS unreversed,
                coalesce(sum(l.amount) FILTER (WHERE ${CREDIT}), 0)::bigint AS credits,
                coalesce(sum(l.amount) FILTER (WHERE l.reason = 'reversal'), 0)::bigint AS reversals,
                coalesce(sum(l.remaining) FILTER (WHERE l.remaining > 0), 0)::bigint AS expiring
           FROM points_ledger l WHERE l.organization_id = $1 GROUP BY 1
       )
  SELECT c.id, c.external_id, c.available_points::bigint AS available, c.lifetime_points::bigint AS lifetime,
         coalesce(s.ledger, 0)::bigint AS ledger, coalesce(s.unreversed, 0)::bigint AS unreversed, coalesce(s.credits, 0)::bigint AS credits,
         coalesce(s.reversals, 0)::bigint AS reversals, coalesce(s.expiring, 0)::bigint AS expiring, coalesce(w.lowest, 0)::bigint AS lowest
    FROM customers c LEFT JOIN sums s ON s.customer_id = c.id LEFT JOIN lowest w ON w.customer_id = c.id
   WHERE c.organization_id = $1
   ORDER BY c.id`;

/** Credits due more than $2 seconds ago with points still left: the expiry sweeper did not take them. */
export const OVERDUE_CREDITS = `SELECT l.id::text, l.customer_id, l.remaining, l.expires_at, now() - l.expires_at AS overdue
    FROM points_ledger l
   WHERE l.organization_id = $1 AND l.remaining > 0 AND l.expires_at < now() - make_interval(secs => $2)
   ORDER BY l.expires_at LIMIT 1000`;

/** Credits with an expiry, for the count of what the expiry check looked at. */
export const EXPIRING_CREDITS = `SELECT count(*)::int AS n FROM points_ledger l WHERE l.organization_id = $1 AND l.expires_at IS NOT NULL`;

/**
 * Every event a replay evaluates (processed or stored; perform's too), with what the live evaluation stored, per
 * customer in the order the evaluations ran: by the evaluating transaction's start, and within one (a worker's batch)
 * as the worker takes them, by occurred_at then id.
 */
export const REPLAYED_EVENTS = `SELECT e.id::text, e.customer_id, e.api_key_id, e.transaction_id, e.source, e.name, e.count, e.attributes, e.context,
         floor(extract(epoch FROM e.occurred_at) * 1000)::float8 AS occurred_ms,
         floor(extract(epoch FROM e.processed_at) * 1000)::float8 AS processed_ms,
         e.campaign_id, e.qualify, e.reason, e.result, o.multi_org_enabled
    FROM events e JOIN organizations o ON o.id = e.organization_id
   WHERE e.organization_id = $1 AND e.customer_id IS NOT NULL AND e.status IN ('processed', 'stored')
   ORDER BY e.customer_id, e.processed_at, e.occurred_at, e.id`;

/** The reversals in the order they were made, per customer. */
export const REPLAYED_REVERSALS = `SELECT r.customer_id, r.api_key_id, r.transaction_id, floor(extract(epoch FROM r.created_at) * 1000)::float8 AS at_ms
    FROM event_reversals r WHERE r.organization_id = $1
   ORDER BY r.customer_id, r.created_at, r.id`;

/** Stored progress rows of the organization's customers. */
export const PROGRESS_ROWS = `SELECT p.customer_id, p.behavior_id, p.state, p.achieved
    FROM customer_progress p JOIN customers c ON c.id = p.customer_id
   WHERE c.organization_id = $1`;

/** Ledger credits per customer and behavior (the behavior that earned them: `source.behavior_id`). */
export const CREDITS_BY_BEHAVIOR = `SELECT l.customer_id, (l.source->>'behavior_id')::int AS behavior_id, sum(l.amount)::bigint AS points
    FROM points_ledger l WHERE l.organization_id = $1 AND ${CREDIT}
   GROUP BY 1, 2`;

/**
 * Campaigns with a budget: the limits, the counters, and what the stored rows say was used: completions in the events'
 * results and credits of the campaign, all and those not taken back by a reversal (a reversal gives both back).
 */
export const BUDGETS = `WITH completions AS (
         SELECT (x->>'campaign_id')::int AS campaign_id, count(*)::int AS total,
                count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM event_reversals r WHERE r.api_key_id = e.api_key_id AND r.transaction_id = e.transaction_id))::int AS kept
           FROM events e CROSS JOIN LATERAL jsonb_array_elements(${COMPLETIONS}) x
          WHERE e.organization_id = $1 AND e.status IN ('processed', 'stored')
          GROUP BY 1
       ), credits AS (
         SELECT (l.source->>'campaign_id')::int AS campaign_id, sum(l.amount)::bigint AS total,
                coalesce(sum(l.amount) FILTER (WHERE l.reversed_at IS NULL), 0)::bigint AS kept
           FROM points_ledger l WHERE l.organization_id = $1 AND ${CREDIT}
          GROUP BY 1
       )
  SELECT c.id, c.name, c.budget_max_completions, c.budget_max_points::bigint AS budget_max_points, c.budget_completions,
         c.budget_points::bigint AS budget_points, c.budget_exhausted_at,
         coalesce(k.total, 0) AS completions, coalesce(k.kept, 0) AS completions_kept,
         coalesce(p.total, 0)::bigint AS points, coalesce(p.kept, 0)::bigint AS points_kept
    FROM campaigns c LEFT JOIN completions k ON k.campaign_id = c.id LEFT JOIN credits p ON p.campaign_id = c.id
   WHERE c.organization_id = $1 AND (c.budget_max_completions IS NOT NULL OR c.budget_max_points IS NOT NULL)
   ORDER BY c.id`;

/** The organization's webhooks (deleted ones too). */
export const WEBHOOKS = `SELECT w.id, w.event_types, w.created_at, w.deleted_at FROM webhooks w WHERE w.organization_id = $1`;

/** Every delivery's settled state and whether the event it names exists. */
export const DELIVERIES = `SELECT d.id::text, d.webhook_id, d.event_id::text, d.type, d.status, d.attempts, d.updated_at,
         d.event_id IS NULL OR EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id AND e.organization_id = d.organization_id) AS event_exists,
         (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS recorded_attempts
    FROM webhook_deliveries d WHERE d.organization_id = $1
   ORDER BY d.id`;

/** Per event: its time, completions, points and notifications, and its deliveries by type (the outbox rows written with it). */
export const EVENT_OUTBOX = `WITH sent AS (
         SELECT x.event_id, jsonb_object_agg(x.type, x.n) AS deliveries
           FROM (SELECT d.event_id, d.type, count(*)::int AS n FROM webhook_deliveries d
                  WHERE d.organization_id = $1 AND d.event_id IS NOT NULL GROUP BY 1, 2) x
          GROUP BY 1
       ), notes AS (
         SELECT n.event_id, count(*)::int AS n FROM notifications n
          WHERE n.organization_id = $1 AND n.event_id IS NOT NULL GROUP BY 1
       )
  SELECT e.id::text, e.processed_at, jsonb_array_length(${COMPLETIONS})::int AS completions, e.points_earned::bigint AS points,
         coalesce(nt.n, 0) AS notifications, coalesce(s.deliveries, '{}'::jsonb) AS deliveries
    FROM events e LEFT JOIN notes nt ON nt.event_id = e.id LEFT JOIN sent s ON s.event_id = e.id
   WHERE e.organization_id = $1 AND e.status IN ('processed', 'stored')`;

/**
 * The changes made outside evaluations, and the deliveries of the matching type, by subject: debits and expiries per
 * customer (their payload names the customer), reversals per transaction id, budget exhaustion per campaign. A FULL
 * join: deliveries of a subject without any change (a rolled-back one) show as changes 0.
 */
export const OTHER_OUTBOX = `WITH sent AS (
         SELECT d.type, CASE d.type WHEN 'points.reversed' THEN d.payload->'data'->>'transaction_id'
                                    WHEN 'campaign.budget_exhausted' THEN d.payload->'data'->>'campaign_id'
                                    ELSE d.payload->'data'->>'user_id' END AS subject,
                count(*)::int AS n
           FROM webhook_deliveries d
          WHERE d.organization_id = $1 AND d.type IN ('points.debited', 'points.expired', 'points.reversed', 'campaign.budget_exhausted')
          GROUP BY 1, 2
       ), changes AS (
         SELECT 'points.debited' AS type, l.customer_id::text AS subject, min(l.created_at) AS first_at, count(*)::int AS n
           FROM points_ledger l WHERE l.organization_id = $1 AND l.reason = 'debit' GROUP BY l.customer_id
         UNION ALL
         SELECT 'points.expired', l.customer_id::text, min(l.created_at), count(*)::int
           FROM points_ledger l WHERE l.organization_id = $1 AND l.reason = 'expired' GROUP BY l.customer_id
         UNION ALL
         SELECT 'points.reversed', r.transaction_id, r.created_at, 1 FROM event_reversals r WHERE r.organization_id = $1
         UNION ALL
         SELECT 'campaign.budget_exhausted', c.id::text, c.budget_exhausted_at, 1
           FROM campaigns c WHERE c.organization_id = $1 AND c.budget_exhausted_at IS NOT NULL
       )
  SELECT coalesce(c.type, s.type) AS type, coalesce(c.subject, s.subject) AS subject, c.first_at, coalesce(c.n, 0) AS changes, coalesce(s.n, 0) AS deliveries
    FROM changes c FULL JOIN sent s ON s.type = c.type AND s.subject = c.subject`;

/** The organization's simulations. */
export const SIMULATIONS = `SELECT s.id, s.campaign_id, s.status, s.error, s.attempt, s.range_from, s.range_to, s.customer_ids, s.customers,
         s.events_replayed::bigint AS events_replayed, s.results, s.started_at, s.completed_at
    FROM simulations s WHERE s.organization_id = $1 ORDER BY s.id`;

/**
 * Events of a simulation's range (as EventLogRepository.replay reads them: not rejected, not perform's, the range
 * inclusive, $4 the customers or null) stored after $5: those a run that started then may not have seen.
 */
export const LATE_EVENTS = `SELECT count(*)::int AS n FROM events e
   WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at <= $3 AND e.customer_id IS NOT NULL
     AND e.status <> 'rejected' AND e.source <> 'perform' AND ($4::uuid[] IS NULL OR e.customer_id = ANY($4::uuid[]))
     AND e.created_at >= $5`;

/**
 * Every event of the organization for the soak's model (books-model.ts): its marker, what it is, its times, and the
 * behaviors its stored result says it completed.
 */
export const MODEL_EVENTS = `SELECT e.id::text, e.customer_id, coalesce(e.attributes->>'soak_id', e.context->>'soak_id') AS marker, e.name, e.source,
         e.transaction_id, e.status,
         floor(extract(epoch FROM e.occurred_at) * 1000)::float8 AS occurred_ms,
         floor(extract(epoch FROM e.processed_at) * 1000)::float8 AS processed_ms,
         floor(extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
         (SELECT coalesce(jsonb_agg((x->>'behavior_id')::int), '[]'::jsonb) FROM jsonb_array_elements(${COMPLETIONS}) x) AS completed
    FROM events e WHERE e.organization_id = $1
   ORDER BY e.id`;
