/**
 * The acceptance ceiling of the V2 benchmark, run as a process of its own as the API is: a plain node:http server
 * (no Nest, no Express) with raw `pg` and BullMQ, doing the durable work V2 acceptance cannot avoid and nothing else.
 * For each POST of a batch it parses the JSON body and runs the service's own statement (STORE_V2_EVENTS, the one
 * V2EventsUseCase.execute sends): the batch's idempotency keys claimed in
 * `event_transactions` and its events inserted into the partitioned log `events`, in ONE statement (json_to_recordset
 * of one JSON parameter, customers resolved by id or external id in the same statement, a transaction id already used
 * or repeated in the batch storing nothing); then it queues the stored events with the service's own `enqueueEvents`
 * (same job names, options, packing and id shape) and answers {"status":"ok"}. No auth, validation, division lookup
 * (multi-org is off: the service writes no division either), request log or metrics.
 * It writes the very tables the API writes, so each row costs the same partition, indexes, key checks and idempotency
 * key. Its request ids start with `ceiling-`, so the benchmark counts the rows it stored apart from the API's.
 * Env: PORT, DATABASE_URL, REDIS_URL, QUEUE_PREFIX (its own), ORGANIZATION_ID, API_KEY_ID. Prints "ready".
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import pg from 'pg';
import { enqueueEvents, type QueuedEvent } from '../../src/modules/events/enqueue.js';
import { STORE_V2_EVENTS } from '../../src/modules/events/v2-events.js';
import { EventsJob, QueueName } from '../../src/queues/queue-names.js';

/** The prefix of the ceiling's request ids (events.request_id), by which the benchmark counts its rows. */
export const CEILING_REQUEST_PREFIX = 'ceiling-';
const LIMIT = 1024 * 1024;
const organizationId = Number(process.env.ORGANIZATION_ID);
const apiKeyId = Number(process.env.API_KEY_ID);

/** V2EventsUseCase.execute's statement (multi-org off: division_id null). */

interface InEvent {
  name?: string;
  user_id?: string;
  external_id?: string;
  transaction_id?: string;
  by?: number;
  context?: Record<string, unknown>;
  occurred_at?: string;
}

async function accept(body: string): Promise<void> {
  const events = (JSON.parse(body) as { events: InEvent[] }).events;
  const now = new Date();
  const rows = JSON.stringify(
    events.map((e) => ({
      user_id: e.user_id ?? null,
      external_id: e.external_id ?? null,
      transaction_id: e.transaction_id ?? null,
      name: e.name,
      count: e.by ?? 1,
      context: e.context ?? {},
      division_id: null,
      occurred_at: e.occurred_at ? new Date(e.occurred_at) : now,
    })),
  );
  const stored = (await db.query(STORE_V2_EVENTS, [organizationId, apiKeyId, `${CEILING_REQUEST_PREFIX}${randomUUID()}`, rows])).rows as QueuedEvent[];
  if (stored.length) await enqueueEvents(queue, stored, EventsJob.Evaluate, 'ceiling');
}

let db: pg.Pool;
let failures = 0;
let queue: Queue;

// Started as a process (not imported for CEILING_REQUEST_PREFIX).
if (process.env.ACCEPTANCE_CEILING === '1') {
  if (!organizationId || !apiKeyId) throw new Error('ORGANIZATION_ID and API_KEY_ID are required');
  db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  queue = new Queue(QueueName.Events, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null }, prefix: process.env.QUEUE_PREFIX });
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
          // The first errors are shown; all are counted by the benchmark (answers 500), which then FAILS.
          if ((failures += 1) <= 3) process.stderr.write(`acceptance ceiling: ${error.message}\n`);
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
}
