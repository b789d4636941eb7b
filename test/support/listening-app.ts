import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../src/config/config.js';
import type { TestTenant } from '../factories/tenant.factory.js';
import { listen } from '../../src/common/http/listen.js';
import { createTestApp } from './app.js';

/** The real API on a port of its own, for bursts sent over separate connections (fetch), so that they are in the server together. */

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  body: Json;
}

export interface Process {
  app: INestApplication;
  baseUrl: string;
}

/** A test app (createTestApp with `config`) listening on a port of its own. */
export async function startProcess(config: Partial<AppConfig> = {}): Promise<Process> {
  const app = await createTestApp(config);
  await listen(app, 0, '127.0.0.1');
  const port = ((app.getHttpServer() as Server).address() as AddressInfo).port;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

/** POST /priv/v1/apps/:key/users/:user_id/events over its own connection; a request that gets no answer is status 0. */
export async function sendEvent(process: Process, tenant: TestTenant, userId: string, body: Json = { events: { visit: {} } }): Promise<Answer> {
  try {
    const res = await fetch(`${process.baseUrl}/priv/v1/apps/${tenant.apiKey}/users/${userId}/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${tenant.apiKey}:${tenant.apiSecret}`).toString('base64')}`,
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Json;
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  } catch (error) {
    return { status: 0, body: { error: (error as Error).message } };
  }
}

/** How many answers had each status, e.g. {"200": 100}; with the first answer that was not 200, to say why. */
export function statuses(answers: Answer[]): { counts: Record<string, number>; firstFailure: Answer | undefined } {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[String(a.status)] = (counts[String(a.status)] ?? 0) + 1;
  return { counts, firstFailure: answers.find((a) => a.status !== 200) };
}

/** Runs `work` over `items`, `width` at a time (setup and reads, not the bursts under test). */
export async function inChunks<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(work))));
  return out;
}
