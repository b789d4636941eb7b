import { jest } from '@jest/globals';
import { OrganizationTurns, type Turn } from './organization-turns.js';
import { REQUEST_BYTES } from './organization-usage.js';

const turns = (atOnce: number, bytesWaiting = 1024 * 1024, organizationAtOnce = atOnce) =>
  new OrganizationTurns({ apiRequestsAtOnce: atOnce, organizationRequestsAtOnce: organizationAtOnce, organizationBytesWaiting: bytesWaiting });
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Takes a turn and records when it starts, under `name`. */
function taker(t: OrganizationTurns, started: string[]) {
  return (organizationId: number, name: string, bytes = 0): Promise<Turn> => {
    const taken = t.take(organizationId, bytes);
    if (!taken) throw new Error(`${name} refused`);
    return taken.then((turn) => {
      started.push(name);
      return turn;
    });
  };
}

describe('OrganizationTurns', () => {
  it('gives an organization alone every slot of the process, and the next requests wait in order for the ones that end', async () => {
    const t = turns(3);
    const started: string[] = [];
    const take = taker(t, started);
    const [first] = await Promise.all([take(1, 'a1'), take(1, 'a2'), take(1, 'a3')]);
    void take(1, 'a4');
    void take(1, 'a5');
    await settled();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    expect(t.load(1)).toEqual({ running: 3, waiting: 2 });
    first.end();
    await settled();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(t.load(1)).toEqual({ running: 3, waiting: 1 });
  });

  it('gives a freed slot to the organization with the fewest requests in service, however long the other’s line', async () => {
    const t = turns(2);
    const started: string[] = [];
    const take = taker(t, started);
    const held = await Promise.all([take(1, 'a1'), take(1, 'a2')]);
    for (let i = 3; i <= 6; i += 1) void take(1, `a${i}`);
    void take(2, 'b1');
    void take(2, 'b2');
    await settled();
    held[0].end();
    await settled();
    expect(started.slice(2)).toEqual(['b1']); // B had none in service
    held[1].end();
    await settled();
    expect(started.slice(2)).toEqual(['b1', 'a3']); // then one each: A's oldest is older than B's next
  });

  it('while another organization is served, holds each one to its share of slots, and leaves a slot free rather than pass it', async () => {
    const t = turns(6, 1024 * 1024, 2);
    const started: string[] = [];
    const take = taker(t, started);
    const a = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => take(1, `a${i}`))); // alone: every slot
    void take(1, 'a7');
    const b = take(2, 'b1');
    await settled();
    a[0].end();
    await settled();
    expect(started.slice(6)).toEqual(['b1']);
    a[1].end();
    a[2].end();
    await settled();
    expect(started.slice(6)).toEqual(['b1']); // A holds 3, over its share of 2 while B is served: two slots stay free
    expect(t.load(1)).toEqual({ running: 3, waiting: 1 });
    (await b).end();
    a[3].end();
    a[4].end();
    await settled();
    expect(started.slice(6)).toEqual(['b1', 'a7']); // under its share again (B ended within the last second)
  });

  it('refuses a request only when its organization’s waiting requests would hold more than the bound in bytes', async () => {
    const t = turns(1, 3 * REQUEST_BYTES + 500);
    const held = await t.take(1)!;
    expect(t.take(1, 0)).not.toBeNull();
    expect(t.take(1, 0)).not.toBeNull();
    expect(t.take(1, 600)).toBeNull(); // 3 KiB + 600 bytes would wait
    expect(t.take(1, 400)).not.toBeNull();
    expect(t.take(2, 0)).not.toBeNull(); // another organization's line is its own
    expect(t.load(1)).toEqual({ running: 1, waiting: 3 });
    held.end();
  });

  it('ends a turn once however often it is ended, and forgets an organization with nothing left', async () => {
    const t = turns(2);
    const end = (await t.take(1)!).end;
    const other = await t.take(1)!;
    end();
    end();
    expect(t.load(1)).toEqual({ running: 1, waiting: 0 });
    other.end();
    expect(t.load(1)).toEqual({ running: 0, waiting: 0 });
    expect(t.othersServed(2, 0)).toBe(false);
  });

  it('a paused turn gives its slot to the next waiter and, resumed, takes one again ahead of its organization’s line', async () => {
    const t = turns(1);
    const started: string[] = [];
    const take = taker(t, started);
    const hot = await take(1, 'hot');
    const other1 = take(1, 'other1');
    void take(1, 'other2');
    await settled();
    hot.pause(); // it waits for its customer's lane
    await settled();
    expect(started).toEqual(['hot', 'other1']);
    expect(t.load(1)).toEqual({ running: 2, waiting: 1 }); // the paused one still counts as in progress
    let resumed = false;
    void hot.resume().then(() => (resumed = true));
    await settled();
    expect(resumed).toBe(false); // other1 holds the only slot
    (await other1).end();
    await settled();
    expect([resumed, started]).toEqual([true, ['hot', 'other1']]); // ahead of other2
    hot.end();
    await settled();
    expect(started).toEqual(['hot', 'other1', 'other2']);
  });

  it('a turn ended while it waits to resume leaves the line and lets its work go on', async () => {
    const t = turns(1);
    const hot = await t.take(1)!;
    hot.pause();
    const other = await t.take(1)!;
    const resumed = hot.resume();
    hot.end(); // its client went away
    await expect(resumed).resolves.toBeUndefined();
    expect(t.load(1)).toEqual({ running: 1, waiting: 0 });
    other.end();
    expect(t.load(1)).toEqual({ running: 0, waiting: 0 });
  });

  it('tells whether another organization has a request in progress or had one end lately', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }); // performance.now() set by the spec
    try {
      const t = turns(2);
      expect(t.othersServed(1, 250)).toBe(false);
      const turn = await t.take(2)!;
      expect([t.othersServed(1, 250), t.othersServed(2, 250)]).toEqual([true, false]);
      turn.end();
      expect(t.othersServed(1, 250)).toBe(true);
      jest.advanceTimersByTime(30);
      expect([t.othersServed(1, 250), t.othersServed(1, 31), t.othersServed(1, 29)]).toEqual([true, true, false]);
    } finally {
      jest.useRealTimers();
    }
  });
});
