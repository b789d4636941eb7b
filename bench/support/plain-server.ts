/**
 * Ceiling S of the V1 benchmark, run as a process of its own as the API is: a plain node:http server (no Nest, no
 * Express) answering POST /priv/v1/apps/:key/users/:user_id/events ({"events": {...}}) by running, over raw `pg`,
 * exactly the statements the service sends for a V1 sync event, in the same round trips, built by the service's own
 * compiled code (dist/src):
 *   1. `BEGIN; SET LOCAL lock_timeout = 5000`, the customer read locked FOR NO KEY UPDATE and the progress read of the
 *      involved behaviors, pipelined in one write (UnitOfWork, EvaluationRepository.customer and progressByKey);
 *   2. the engine (instancesFromV1, involvedBehaviors, evaluate, eventOutcome, webhookOccurrences, planWrite), then the
 *      write statement and COMMIT in one write (EvaluationRepository.write);
 * and answering the service's V1 body (v1Response). The pool runs pg in pipeline mode as the API's does
 * (src/database/data-source.ts).
 * What it leaves out, and the API does: authentication (the API checks the key and secret against its in-process
 * cache; S takes the tenant it loaded at start), the request id middleware and its log line, validation pipes,
 * rate limit, metrics, the per-customer lanes (CustomerLanes: in-process ordering, no statement), after-commit work
 * (webhook deliveries: none here, metrics). Rules and webhook subscriptions are loaded and compiled once at start:
 * S is the API with a warm cache (a rules version newer than the one compiled is loaded again, as the service does).
 * Env: PORT (0: any free port), DATABASE_URL, API_KEY (the tenant's), DATABASE_POOL_SIZE (default 20, the API's).
 * Prints "port <port>" then "ready" once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import type { Tenant } from '../../src/common/http/request-context.js';
import { compileRules, CORE_EXTENSIONS, evaluate, instancesFromV1, type CompiledRules } from '../../src/engine/index.js';
import { toRuleSet } from '../../src/modules/campaigns/rules/rule-set.mapper.js';
import { RulesRepository } from '../../src/modules/campaigns/rules/rules.repository.js';
import { EvaluationRepository } from '../../src/modules/evaluation/evaluation.repository.js';
import { TierFacts } from '../../src/modules/customers-state/tiers/tier-facts.repository.js';
import { eventOutcome } from '../../src/modules/evaluation/event-outcome.js';
import { involvedBehaviors } from '../../src/modules/evaluation/involved-behaviors.js';
import { newEventRows, planWrite, type NewEvent } from '../../src/modules/evaluation/write-plan.js';
import { instanceDivisions } from '../../src/modules/events/scope.js';
import { v1Response } from '../../src/modules/events/v1-response.js';
import { webhookOccurrences, type WebhookEventType } from '../../src/modules/webhooks/occurrences.js';
import { WebhookSubscriptions } from '../../src/modules/webhooks/subscriptions.js';

/** The service's lock wait (evaluation/customer-transactions.ts, LOCK_WAIT_MS). */
const LOCK_WAIT_MS = 5_000;
const LIMIT = 1024 * 1024;
const ROUTE = /^\/priv\/v1\/apps\/([^/]+)\/users\/([^/?]+)\/events(?:\?.*)?$/;

const db = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 20),
  connectionTimeoutMillis: 5000,
  pipeline: true,
  onConnect: (client) => void client.on('error', () => undefined),
});
const repository = new EvaluationRepository(new TierFacts());
const rulesRepository = new RulesRepository();

/** What the API's key guard answers for the key (api-key.service.ts), read once: S does no auth. */
async function loadTenant(key: string): Promise<Tenant> {
  const { rows } = await db.query(
    `SELECT k.id, k.key, k.organization_id, k.application_id, o.multi_org_enabled, o.time_zone, d.id AS root_division_id
       FROM api_keys k
       JOIN organizations o ON o.id = k.organization_id
       JOIN divisions d ON d.organization_id = o.id AND d.parent_id IS NULL
      WHERE k.key = $1`,
    [key],
  );
  const row = rows[0];
  if (!row) throw new Error(`no api key ${key}`);
  return {
    organizationId: row.organization_id,
    applicationId: row.application_id,
    apiKeyId: row.id,
    apiKey: row.key,
    multiOrgEnabled: row.multi_org_enabled,
    timeZone: row.time_zone,
    rootDivisionId: row.root_division_id,
  };
}

const tenant = await loadTenant(process.env.API_KEY ?? '');
const org = tenant.organizationId;

/** The warm cache: the organization's compiled rules and webhook subscriptions, loaded on one pooled connection. */
let cached: { version: number; rules: CompiledRules; subscribed: ReadonlySet<WebhookEventType> };
async function loadRules(uow: UnitOfWork): Promise<typeof cached> {
  const version = await rulesRepository.version(uow, org);
  const rules = compileRules(toRuleSet(await rulesRepository.load(uow, org)), CORE_EXTENSIONS);
  // typesFor reads on the connection given; its own data source is never used.
  const subscribed = await new WebhookSubscriptions(undefined as never).typesFor(org, version, uow);
  return { version, rules, subscribed };
}
{
  const client = await db.connect();
  try {
    cached = await loadRules(new UnitOfWork(client));
  } finally {
    client.release();
  }
}

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

/** One V1 sync event request, as V1EventsUseCase.process and EvaluationPipeline.forCustomer run it (write: true). */
async function v1Sync(userId: string, bodyText: string): Promise<unknown> {
  const body = JSON.parse(bodyText) as { events?: Record<string, unknown>; date?: string; transaction_id?: string; qualify?: boolean };
  if (!body.events || Object.keys(body.events).length === 0) throw new HttpError(400);
  const requestId = randomUUID();
  const now = Date.now();
  const occurredAt = body.date ? new Date(body.date).getTime() : now;
  const instances = instancesFromV1(body.events, occurredAt);
  const key = { userId };
  // The service's hint: the behaviors the last compiled rules say the events involve, read with the customer.
  const guess = involvedBehaviors(cached.rules, instances, null);
  const client = await db.connect();
  const uow = new UnitOfWork(client);
  let ended = false;
  try {
    // Round trip 1: BEGIN + lock_timeout, the customer locked, its progress (one write).
    uow.run({ text: `BEGIN; SET LOCAL lock_timeout = ${LOCK_WAIT_MS}` }).catch(() => undefined);
    const [customer, guessed] = await Promise.all([repository.customer(uow, org, key, true), repository.progressByKey(uow, org, key, guess)]);
    if (!customer) throw new HttpError(404);
    if (customer.rulesVersion > cached.version) cached = await loadRules(uow);
    const { rules, subscribed } = cached;
    const missing = involvedBehaviors(rules, instances, null).filter((id) => !guess.includes(id));
    const progress = missing.length ? { ...guessed, ...(await repository.progress(uow, [customer.snapshot.id], missing)).get(customer.snapshot.id) } : guessed;
    // The engine and the write plan.
    const divisions = instanceDivisions(tenant, rules, instances, (i) => `events.${instances[i].name}.context.division_id`);
    const result = evaluate({ rules, customer: customer.snapshot, progress, events: instances, now, multiOrgEnabled: tenant.multiOrgEnabled, campaignId: null, qualify: body.qualify === true });
    const rows: NewEvent[] = instances.map((instance, i) => ({
      organizationId: org,
      apiKeyId: tenant.apiKeyId,
      customerId: customer.snapshot.id,
      userRef: customer.externalId,
      source: 'v1',
      transactionId: i === 0 ? (body.transaction_id ?? null) : null,
      instance,
      divisionId: divisions[i],
      campaignId: null,
      requestId,
      qualify: body.qualify === true,
      ...eventOutcome(result, i, false),
    }));
    const webhooks = webhookOccurrences(rules, customer.snapshot, result, customer.externalId, subscribed, now);
    const plan = planWrite({ insert: newEventRows(rows) }, [{ organizationId: org, before: customer.snapshot, result, firstIndex: 0, webhooks }]);
    // Round trip 2: the write statement + COMMIT (one write).
    ended = true;
    const [written] = await Promise.all([repository.write(uow, plan), uow.run({ text: 'COMMIT' })]);
    return v1Response(rules, result, { ...progress, ...result.progress }, written.notificationIds, false);
  } catch (error) {
    await uow.settle();
    if (!ended) await uow.run({ text: 'ROLLBACK' }).catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
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
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const route = req.method === 'POST' ? ROUTE.exec(req.url ?? '') : null;
    if (!route || route[1] !== tenant.apiKey) return answer(404, '{"status":"error"}');
    if (size > LIMIT) return answer(413, '{"status":"error"}');
    v1Sync(decodeURIComponent(route[2]), Buffer.concat(chunks).toString('utf8')).then(
      (body) => answer(200, JSON.stringify(body)),
      (error: Error) => {
        if (error instanceof HttpError) return answer(error.status, '{"status":"error"}');
        process.stderr.write(`ceiling S: ${error.message}\n`);
        answer(500, '{"status":"error"}');
      },
    );
  });
});

const close = () => {
  server.close();
  void db.end().finally(() => process.exit(0));
};
process.once('SIGTERM', close);
process.once('SIGINT', close);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\nready\n`));
