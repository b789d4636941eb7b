import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** An application's credentials, for the /priv routes; or the ADMIN_TOKEN, for the /admin bootstrap routes. */
export type Credentials = { apiKey: string; apiSecret: string } | { adminToken: string };

/**
 * A typed client of the campaign engine: every path, parameter, request body and answer is typed from the OpenAPI
 * document (`schema.d.ts`, generated from docs/openapi.json by openapi-typescript; `npm run client:generate`).
 * Requests are made by openapi-fetch: `client.POST('/priv/v1/apps/{api_key}/users', { params, body })` answers
 * `{ data, error, response }`, `data` typed by the success schema and `error` by the error envelope.
 */
export function createCampaignEngineClient(baseUrl: string, credentials: Credentials): Client<paths> {
  const authorization =
    'adminToken' in credentials ? `Bearer ${credentials.adminToken}` : `Basic ${btoa(`${credentials.apiKey}:${credentials.apiSecret}`)}`;
  return createClient<paths>({ baseUrl, headers: { authorization } });
}
