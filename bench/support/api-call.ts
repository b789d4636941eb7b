import { ADMIN_TOKEN } from './history-server.js';

/** An application's credentials, as the admin API answers them. */
export interface Tenant {
  key: string;
  secret: string;
}

/** HTTP Basic with the api key and secret, and a JSON body. */
export const headers = (t: Tenant) => ({ authorization: `Basic ${Buffer.from(`${t.key}:${t.secret}`).toString('base64')}`, 'content-type': 'application/json' });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read member by member, checked by the bench
export type Answer = Record<string, any>;

/** One request to the API (the admin token without a tenant); any status but `expected` ends the benchmark. */
export async function call(url: string, method: string, body: unknown, tenant?: Tenant, expected = 200): Promise<Answer> {
  const res = await fetch(url, { method, headers: tenant ? headers(tenant) : { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status !== expected) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Answer;
}
