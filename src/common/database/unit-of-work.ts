import type { PoolClient, QueryResult } from 'pg';

/** One SQL statement; a `name` makes it a prepared statement, parsed and planned once per connection. */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** What a repository method runs its statements on: a unit of work, a TypeORM manager or the data source. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * The statements of one transaction on one pooled connection, pipelined: every statement asked for in the same tick
 * goes to PostgreSQL in one write (the pool runs pg in pipeline mode, database/data-source.ts), so
 * `Promise.all([repo.a(uow), repo.b(uow)])` is one round trip while each repository method still runs its own
 * statement and returns typed rows. Each statement has its own Sync: an error in one does not swallow the others'
 * answers. Only the event path's transaction runner (evaluation/customer-transactions.ts) makes one.
 */
export class UnitOfWork implements Queryable {
  private corked = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly client: PoolClient) {}

  /** Runs a statement (in this tick's write); answers its rows. */
  async run<R>(statement: Statement): Promise<R[]> {
    return ((await this.send(statement)) as QueryResult).rows as R[];
  }

  /** `Queryable`: runs a statement given as text and values. */
  async query<R = unknown>(text: string, values?: unknown[]): Promise<R[]> {
    return this.run<R>({ text, values });
  }

  /** Resolves once every statement sent has been answered: the connection then has nothing in flight. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * No statement may be sent any more: the transaction is over and the connection goes back to the pool. Code still
   * holding the unit of work (an extension that answered after its deadline) gets an error rather than a statement
   * run on a connection another transaction may be using.
   */
  close(): void {
    this.closed = true;
  }

  private send(statement: Statement): Promise<QueryResult> {
    if (this.closed) return Promise.reject(new Error('the transaction is over: no statement can be sent on it'));
    if (!this.corked) {
      const stream = (this.client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
      stream.cork();
      this.corked = true;
      process.nextTick(() => {
        this.corked = false;
        stream.uncork();
      });
    }
    const answer = this.client.query(statement);
    this.inFlight.add(answer);
    const forget = () => this.inFlight.delete(answer);
    answer.then(forget, forget);
    return answer;
  }
}
