import type { CompiledRules, EvaluationResult } from '../../engine/index.js';
import { webhookOccurrences, type WebhookEventType } from '../webhooks/index.js';
import type { LoadedCustomer } from './evaluation.repository.js';
import { eventOutcome, processedOutcome } from './event-outcome.js';
import { eventRow, planWrite, type EventOutcome, type EventToStore, type NewEventRow, type WritePlan } from './write-plan.js';

/** What one customer's evaluation stores: its new events and what the engine decided for them. */
export interface EventsToStore {
  /** The events, in the order the result's eventIndex counts them. */
  events: EventToStore[];
  result: EvaluationResult;
  /** The rows keep each event's explanation (V1 explain=true). */
  explain: boolean;
  /** Every event is processed whatever the campaigns' states: a domain action decided it (perform). */
  processed?: boolean;
  /** A domain action's rows for tables of its own, written in the same transaction before the rest. */
  rows?: WritePlan['rows'];
}

/** What the plan of one customer's evaluation is made from, as the pipeline loaded it. */
interface Evaluated {
  rules: CompiledRules;
  customer: LoadedCustomer;
  subscribed: ReadonlySet<WebhookEventType>;
  now: number;
}

const PENDING: EventOutcome = { status: 'pending', reason: null, result: null, pointsEarned: 0 };

/**
 * The write plan of one customer's evaluation: its events inserted with their outcomes (the result says what each
 * one was made of), what the result changed, and its webhook events.
 */
export function customerPlan(organizationId: number, { rules, customer, subscribed, now }: Evaluated, store: EventsToStore): WritePlan {
  const { result, explain } = store;
  const who = { organizationId, customerId: customer.snapshot.id, userRef: customer.externalId };
  const rows = store.events.map((e, i) => eventRow(who, e, store.processed ? processedOutcome(result, i, explain) : eventOutcome(result, i, explain)));
  const webhooks = webhookOccurrences(rules, customer.snapshot, result, customer.externalId, subscribed, now);
  const plan = planWrite({ insert: rows }, [{ organizationId, before: customer.snapshot, result, firstIndex: 0, webhooks }]);
  if (store.rows?.length) plan.rows = store.rows;
  return plan;
}

/** Rows of events stored pending, for the events worker to evaluate (V1 async=true). */
export function pendingRows(organizationId: number, customer: LoadedCustomer, events: EventToStore[]): NewEventRow[] {
  const who = { organizationId, customerId: customer.snapshot.id, userRef: customer.externalId };
  return events.map((e) => eventRow(who, e, PENDING));
}
