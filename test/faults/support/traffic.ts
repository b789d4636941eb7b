import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import type { TestTenant } from '../../factories/tenant.factory.js';
import type { Customer } from './books.js';

/** A bound on one request: a request still unanswered after it is a hang, and fails the test. */
export const REQUEST_BOUND_MS = 30_000;

export interface V2Event {
  name: 'visit';
  user_id?: string;
  external_id?: string;
  transaction_id: string;
}

let sequence = 0;

/** One `visit` per customer, alternately by user_id and by external_id, each with a transaction_id of its own. */
export function visitBatch(customers: Customer[], tag: string): V2Event[] {
  sequence += 1;
  return customers.map((c, i) => {
    const transaction_id = `${tag}-${sequence}-${i}`;
    return (sequence + i) % 2 === 0 ? { name: 'visit', user_id: c.id, transaction_id } : { name: 'visit', external_id: c.external_id, transaction_id };
  });
}

/** The customer an event of `visitBatch` is for. */
export function customerOf(event: V2Event, customers: Customer[]): Customer {
  return customers.find((c) => c.id === event.user_id || c.external_id === event.external_id)!;
}

/** POST /priv/v2/apps/:api_key/events, bounded by REQUEST_BOUND_MS. */
export function sendV2(app: INestApplication, tenant: TestTenant, events: V2Event[]): Promise<Response> {
  return request(app.getHttpServer())
    .post(`/priv/v2/apps/${tenant.apiKey}/events`)
    .auth(tenant.apiKey, tenant.apiSecret)
    .timeout(REQUEST_BOUND_MS)
    .send({ events });
}

/** A synchronous V1 `visit` for the customer under `transactionId`, bounded by REQUEST_BOUND_MS. */
export function sendV1(app: INestApplication, tenant: TestTenant, customer: Customer, transactionId: string, query = ''): Promise<Response> {
  return request(app.getHttpServer())
    .post(`/priv/v1/apps/${tenant.apiKey}/users/${customer.id}/events${query}`)
    .auth(tenant.apiKey, tenant.apiSecret)
    .timeout(REQUEST_BOUND_MS)
    .send({ events: { visit: 1 }, transaction_id: transactionId });
}

/** Adds one accepted visit to the customer's count. */
export function countVisit(accepted: Map<string, number>, customer: Customer): void {
  accepted.set(customer.id, (accepted.get(customer.id) ?? 0) + 1);
}
