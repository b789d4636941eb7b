/**
 * The acceptance ceiling of the V2 benchmark, run as a process of its own as the API is: a plain node:http server
 * (no Nest, no Express) with raw `pg` and BullMQ, doing the durable work V2 acceptance cannot avoid and nothing else.
 * For each POST of a batch it parses the JSON body, inserts every event into an events-shaped table in ONE statement
 * (json_to_recordset of one JSON parameter: the service's columns, customers resolved by id or external id in the same
 * statement, repeated transaction ids ignored), then queues the stored ids with the service's own `enqueueEvents`
 * (same job names, options, packing and id shape) and answers {"status":"ok"}. No auth, validation, request log or
 * metrics. The table (env TABLE) is created by the benchmark: `LIKE events INCLUDING ALL` plus the foreign keys of
 * `events`, so each row costs the same columns, indexes and key checks.
 * Env: PORT, DATABASE_URL, REDIS_URL, QUEUE_PREFIX (its own), ORGANIZATION_ID, API_KEY_ID, TABLE. Prints "ready".
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import pg from 'pg';
import { occurredKey, type EventKey } from '../../src/modules/evaluation/event-keys.js';
import { enqueueEvents } from '../../src/modules/events/enqueue.js';
import { EventsJob, QueueName } from '../../src/queues/queue-names.js';

const LIMIT = 1024 * 1024;
const organizationId = Number(process.env.ORGANIZATION_ID);
const apiKeyId = Number(process.env.API_KEY_ID);
const tableName = process.env.TABLE ?? 'ceiling_events';
if (!/^[a-z_]+$/.test(tableName) || !organizationId || !apiKeyId) throw new Error('TABLE, ORGANIZATION_ID and API_KEY_ID are required');

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const queue = new Queue(QueueName.Events, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }, prefix: process.env.QUEUE_PREFIX });

const INSERT = `
  INSERT INTO ${tableName} (organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, context, division_id,
                            occurred_at, status, request_id)
  SELECT $1, $2,
         CASE WHEN t.user_id IS NOT NULL
              THEN (SELECT c.id FROM customers c WHERE c.id = t.user_id AND c.organization_id = $1)
              ELSE (SELECT c.id FROM customers c WHERE c.organization_id = $1 AND c.external_id = t.external_id) END,
         coalesce(t.external_id, t.user_id::text), 'v2', t.transaction_id, t.name, t.count, t.context, NULL, t.occurred_at, 'pending', $3
    FROM ROWS FROM (json_to_recordset($4::json) AS (user_id uuid, external_id text, transaction_id text, name text, count numeric, context jsonb,
           occurred_at timestamptz))
         WITH ORDINALITY AS t(user_id, external_id, transaction_id, name, count, context, occurred_at, n)
   ORDER BY t.n
  ON CONFLICT (api_key_id, transaction_id) WHERE transaction_id IS NOT NULL DO NOTHING
  RETURNING id, customer_id AS "customerId", ${occurredKey('occurred_at')} AS "occurredAt"`;

interface InEvent {
  name?: string;
  user_id?: string;
  external_id?: string;
  transaction_id?: string;
  count?: number;
  context?: Record<string, unknown>;
  occurred_at?: string;
}

async function accept(body: string): Promise<void> {
  const events = (JSON.parse(body) as { events: InEvent[] }).events;
  const now = new Date().toISOString();
  const rows = JSON.stringify(
    events.map((e) => ({
      user_id: e.user_id ?? null,
      external_id: e.external_id ?? null,
      transaction_id: e.transaction_id ?? null,
      name: e.name,
      count: e.count ?? 1,
      context: e.context ?? {},
      occurred_at: e.occurred_at ?? now,
    })),
  );
  const stored = (await db.query(INSERT, [organizationId, apiKeyId, randomUUID(), rows])).rows as Array<EventKey & { customerId: string | null }>;
  if (stored.length) await enqueueEvents(queue, stored, EventsJob.Evaluate, 'ceiling');
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= LIMIT) chunks.push(chunk);
  });
  req.on('end', () => {
    const answer = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method !== 'POST' || req.url !== '/events') return answer(404, '{"status":"error"}');
    if (size > LIMIT) return answer(413, '{"status":"error"}');
    accept(Buffer.concat(chunks).toString('utf8')).then(
      () => answer(200, '{"status":"ok"}'),
      (error: Error) => {
        process.stderr.write(`acceptance ceiling: ${error.message}\n`);
        answer(500, '{"status":"error"}');
      },
    );
  });
});

const close = () => {
  server.close();
  void Promise.allSettled([db.end(), queue.close()]).then(() => process.exit(0));
};
process.once('SIGTERM', close);
process.once('SIGINT', close);
await queue.waitUntilReady();
await db.query('SELECT 1');
server.listen(Number(process.env.PORT ?? 3902), '127.0.0.1', () => process.stdout.write('ready\n'));
