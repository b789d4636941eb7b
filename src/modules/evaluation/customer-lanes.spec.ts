import { describe, expect, it, jest } from '@jest/globals';
import { AppError } from '../../common/errors/app-error.js';
import { holdTurn, inTurnScope } from '../../common/auth/current-turn.js';
import { OrganizationTurns } from '../../common/auth/organization-turns.js';
import { CustomerLanes } from './customer-lanes.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CustomerLanes', () => {
  it('runs work for one customer one at a time, in arrival order', async () => {
    const lanes = new CustomerLanes(1000);
    const order: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      lanes.run('c1', async () => {
        order.push(`start ${i}`);
        await gate.promise;
        order.push(`end ${i}`);
      }),
    );
    await tick();
    expect(order).toEqual(['start 0']);
    gates[2].resolve();
    gates[1].resolve();
    await tick();
    expect(order).toEqual(['start 0']);
    gates[0].resolve();
    await Promise.all(runs);
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(lanes.busy).toBe(0);
  });

  it('lets other customers run while one customer is busy', async () => {
    const lanes = new CustomerLanes(1000);
    const hot = deferred();
    const hotRun = lanes.run('hot', () => hot.promise);
    await expect(lanes.run('other', async () => 'done')).resolves.toBe('done');
    expect(lanes.busy).toBe(1);
    hot.resolve();
    await hotRun;
  });

  it('goes on with the next when work fails', async () => {
    const lanes = new CustomerLanes(1000);
    const failed = lanes.run('c1', async () => {
      throw new Error('boom');
    });
    await expect(failed).rejects.toThrow('boom');
    await expect(lanes.run('c1', async () => 2)).resolves.toBe(2);
  });

  it('refuses a turn waited for too long with service_unavailable, and keeps the order for the rest', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }); // the wait's 20 ms set by the spec
    try {
      await refusesAndKeepsOrder();
    } finally {
      jest.useRealTimers();
    }
  });

  async function refusesAndKeepsOrder(): Promise<void> {
    const lanes = new CustomerLanes(20);
    const order: string[] = [];
    const stuck = deferred();
    const first = lanes.run('c1', async () => {
      await stuck.promise;
      order.push('first done');
      return 'first';
    });
    const second = lanes.run('c1', async () => {
      order.push('second ran');
      return 'second';
    });
    jest.advanceTimersByTime(20);
    const error = await second.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('service_unavailable');
    expect((error as AppError).message).toMatch(/too many events for this customer/);
    const third = lanes.run('c1', async () => {
      order.push('third ran');
      return 'third';
    });
    await tick();
    expect(order).toEqual([]); // the first still holds the lane; the refused second never runs
    stuck.resolve();
    await expect(first).resolves.toBe('first');
    await expect(third).resolves.toBe('third'); // let through within its wait, after the first
    expect(order).toEqual(['first done', 'third ran']); // the refused second never ran, even once the lane was free
    expect(lanes.busy).toBe(0);
  }

  it('gives the request’s turn back while it waits for its customer’s lane, and takes one again before its work', async () => {
    const lanes = new CustomerLanes(1000);
    const turns = new OrganizationTurns({ apiRequestsAtOnce: 2, organizationRequestsAtOnce: 2, organizationBytesWaiting: 1 << 20 });
    const order: string[] = [];
    /** A request of organization 1 in its turn: its work for `customer` in the customer's lane. */
    const request = (name: string, customer: string, work: () => Promise<void> = async () => undefined) =>
      inTurnScope(async () => {
        const turn = await turns.take(1)!;
        holdTurn(turn);
        try {
          await lanes.run(customer, async () => {
            order.push(`${name} runs`);
            await work();
          });
        } finally {
          turn.end();
        }
      });
    const hot = deferred();
    const first = request('hot 1', 'hot', () => hot.promise);
    const second = request('hot 2', 'hot');
    await tick();
    expect(turns.load(1)).toEqual({ running: 2, waiting: 0 }); // hot 2 waits in the lane without a slot
    await request('other', 'other'); // the second slot is free for another customer
    expect(order).toEqual(['hot 1 runs', 'other runs']);
    hot.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['hot 1 runs', 'other runs', 'hot 2 runs']);
    expect(turns.load(1)).toEqual({ running: 0, waiting: 0 });
  });
});
