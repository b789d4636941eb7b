import { afterEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.js';
import { checkPostgres, durabilityWarnings } from '../../src/database/preflight.js';

/**
 * The start-up check of PostgreSQL warns when the server may lose commits already answered 2xx in a crash: the soak
 * under faults (docs/reliability.md) lost two answered events and two sent webhooks' rows to synchronous_commit=off.
 */
describe('preflight: PostgreSQL durability settings', () => {
  const databaseUrl = loadConfig(process.env).databaseUrl;
  const clients: pg.Client[] = [];
  const connect = async (options?: string) => {
    const client = new pg.Client({ connectionString: databaseUrl, ...(options ? { options } : {}) });
    clients.push(client);
    await client.connect();
    return client;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
  });

  it('warns, naming the setting, when commits are answered before they reach the WAL', async () => {
    const warnings = await durabilityWarnings(await connect('-c synchronous_commit=off'));
    expect(warnings).toContainEqual(expect.stringContaining('synchronous_commit off'));
  });

  it('says nothing of synchronous_commit at its default, and the start-up check answers the same warnings', async () => {
    const warnings = await durabilityWarnings(await connect());
    expect(warnings.filter((w) => w.includes('synchronous_commit'))).toEqual([]);
    await expect(checkPostgres(databaseUrl)).resolves.toEqual(warnings);
  });
});
