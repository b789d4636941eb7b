import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { withPoolClient } from '../../src/common/database/pool-client.js';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { CustomerTransactions } from '../../src/modules/evaluation/customer-transactions.js';
import { createMediumContext, type MediumContext } from './support/module.js';

describe('UnitOfWork on a real pooled connection', () => {
  let ctx: MediumContext;

  beforeAll(async () => {
    ctx = await createMediumContext({ databasePoolSize: 2 });
  });

  afterAll(() => ctx.close());

  /** Runs `work` on a unit of work of one pooled connection, given back once nothing is in flight. */
  function onConnection<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return withPoolClient(ctx.db, async (client) => {
      const uow = new UnitOfWork(client);
      try {
        return await work(uow);
      } finally {
        await uow.settle();
      }
    });
  }

  it('answers each of several statements asked for in one tick with its own rows, named or not', async () => {
    const answers = await onConnection((uow) =>
      Promise.all([
        uow.run<{ n: number }>({ text: 'SELECT $1::int AS n', values: [1] }),
        uow.run<{ n: number }>({ name: 'medium-generate', text: 'SELECT generate_series(1, $1::int) AS n', values: [3] }),
        uow.query<{ word: string }>('SELECT $1::text AS word', ['two']),
        uow.run<{ n: number }>({ name: 'medium-generate', text: 'SELECT generate_series(1, $1::int) AS n', values: [2] }),
        uow.run({ text: 'SELECT 1 WHERE false' }),
      ]),
    );
    expect(answers).toEqual([[{ n: 1 }], [{ n: 1 }, { n: 2 }, { n: 3 }], [{ word: 'two' }], [{ n: 1 }, { n: 2 }], []]);
  });

  it('runs the statements of one tick in the order they were asked for', async () => {
    const [, read] = await onConnection((uow) =>
      Promise.all([uow.run({ text: `SELECT set_config('medium.order', 'first', false)` }), uow.run<{ value: string }>({ text: `SELECT current_setting('medium.order') AS value` })]),
    );
    expect(read).toEqual([{ value: 'first' }]);
  });

  it('keeps the answers of the other statements when one of them fails, and the connection stays usable', async () => {
    const [before, failed, after, later] = await onConnection(async (uow) => {
      const settled = await Promise.allSettled([
        uow.run<{ n: number }>({ text: 'SELECT 1 AS n' }),
        uow.run({ text: 'SELECT 1 / 0' }),
        uow.run<{ n: number }>({ text: 'SELECT 3 AS n' }),
      ]);
      return [...settled, await uow.run<{ n: number }>({ text: 'SELECT 4 AS n' })] as const;
    });
    expect(before).toEqual({ status: 'fulfilled', value: [{ n: 1 }] });
    expect(failed).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(after).toEqual({ status: 'fulfilled', value: [{ n: 3 }] });
    expect(later).toEqual([{ n: 4 }]);
  });

  it('settle() resolves once every statement sent has been answered, failed ones included, and never rejects', async () => {
    await ctx.db.query(`CREATE TABLE medium_settled (mark text)`);
    const seenAfterSettle = await onConnection(async (uow) => {
      await uow.settle();
      // Outside a transaction each statement commits as it ends: another connection sees the row once it is done.
      void uow.run({ text: `INSERT INTO medium_settled SELECT 'slow' FROM pg_sleep(0.2)` });
      void uow.run({ text: 'SELECT 1 / 0' }).catch(() => undefined);
      await expect(uow.settle()).resolves.toBeUndefined();
      return ctx.db.query(`SELECT mark FROM medium_settled`);
    });
    expect(seenAfterSettle).toEqual([{ mark: 'slow' }]);
  });

  it('refuses statements once its transaction is over, so late code cannot use a connection given back to the pool', async () => {
    const transactions = ctx.app.get(CustomerTransactions);
    let kept: UnitOfWork | undefined;
    await transactions.run(null, async ({ uow }) => {
      kept = uow;
      await uow.query('SELECT 1');
    });
    await expect(kept!.query('SELECT 1')).rejects.toThrow('the transaction is over: no statement can be sent on it');
    await expect(transactions.run(null, async ({ uow }) => ((kept = uow), Promise.reject(new Error('rolled back'))))).rejects.toThrow('rolled back');
    await expect(kept!.query('SELECT 1')).rejects.toThrow('the transaction is over');
  });
});
