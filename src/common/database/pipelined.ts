import type { PoolClient, QueryResult } from 'pg';

export interface PipelinedQuery {
  name?: string;
  text: string;
  values?: unknown[];
}

/**
 * Sends several statements in one write and waits for all their answers: one round trip instead of one each (the
 * connection pool runs pg in pipeline mode, see database/data-source.ts). Each statement has its own Sync, so an
 * error in one does not swallow the others' answers; the first error is thrown once every answer has arrived, so the
 * connection goes back to the pool with nothing in flight.
 */
export async function pipelined(client: PoolClient, queries: PipelinedQuery[]): Promise<QueryResult[]> {
  const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  stream.cork();
  const answers = queries.map((q) => client.query(q));
  process.nextTick(() => stream.uncork());
  const settled = await Promise.allSettled(answers);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<QueryResult>).value);
}
