import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { withPoolClient } from '../../common/database/pool-client.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { CustomerLanes } from './customer-lanes.js';

/** How long an event waits for the earlier events of its customer in this process before it is answered 503. */
export const LANE_WAIT_MS = 10_000;
/** How long a statement of the event path waits for a row lock (another process's transaction) before it gives up. */
export const LOCK_WAIT_MS = 5_000;

/** How every transaction of the path begins: its lock waits bounded (then 55P03, answered 503). */
export const BEGIN_STATEMENT = `BEGIN; SET LOCAL lock_timeout = ${LOCK_WAIT_MS}`;

/** A transaction of the event path; `commitWith` ends it in the same round trip as its last write. */
export interface CustomerTransaction {
  uow: UnitOfWork;
  /** Sends COMMIT right behind the statement `last` is the answer of (one write), and answers `last`. */
  commitWith<T>(last: Promise<T>): Promise<T>;
}

/**
 * The one place that opens and closes the transactions of the event path (V1, the events worker, perform). A
 * transaction runs on one pooled pg connection, its statements pipelined (UnitOfWork); BEGIN travels with the first
 * statements, COMMIT with the last write, ROLLBACK after any failure once nothing is in flight. Work for one customer
 * (`lane`) first waits for its turn in this process (CustomerLanes), without a connection; a row lock held elsewhere
 * is waited for at most LOCK_WAIT_MS (then PostgreSQL's 55P03, answered 503). Nothing the transaction wrote outlives
 * a failure.
 */
@Injectable()
export class CustomerTransactions {
  private readonly lanes = new CustomerLanes(LANE_WAIT_MS);

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  run<T>(lane: string | null, work: (tx: CustomerTransaction) => Promise<T>): Promise<T> {
    return lane === null ? this.transaction(work) : this.lanes.run(lane, () => this.transaction(work));
  }

  /** Reads on one pooled connection, pipelined, without a transaction (retrieval, read_only, the qualify check). */
  read<T>(work: (tx: CustomerTransaction) => Promise<T>): Promise<T> {
    return withPoolClient(this.db, async (client) => {
      const uow = new UnitOfWork(client);
      const commitWith = (): never => {
        throw new Error('a read writes nothing');
      };
      try {
        return await work({ uow, commitWith });
      } finally {
        await uow.settle();
        uow.close();
      }
    });
  }

  private transaction<T>(work: (tx: CustomerTransaction) => Promise<T>): Promise<T> {
    return withPoolClient(this.db, async (client) => {
      const uow = new UnitOfWork(client);
      let ended = false;
      const commit = () => {
        ended = true;
        return uow.run({ text: 'COMMIT' });
      };
      const tx: CustomerTransaction = {
        uow,
        commitWith: async (last) => (await Promise.all([last, commit()]))[0],
      };
      // Not awaited: it goes out in one write with the work's first statements, and a failure shows in theirs.
      uow.run({ text: BEGIN_STATEMENT }).catch(() => undefined);
      try {
        const result = await work(tx);
        if (!ended) await commit();
        return result;
      } catch (error) {
        await uow.settle();
        // A COMMIT behind a failed statement already ended the transaction (as a rollback).
        if (!ended) await uow.run({ text: 'ROLLBACK' }).catch(() => undefined);
        throw error;
      } finally {
        uow.close();
      }
    });
  }
}
