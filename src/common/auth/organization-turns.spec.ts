import { OrganizationTurns } from './organization-turns.js';

const turns = (atOnce: number, waiting: number) => new OrganizationTurns({ organizationRequestsAtOnce: atOnce, organizationRequestsWaiting: waiting });
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('OrganizationTurns', () => {
  it('serves an organization’s requests up to its share at once; the next wait, in order, and take the turns that end', async () => {
    const t = turns(2, 10);
    const first = await t.take(1)!;
    await t.take(1)!;
    const started: string[] = [];
    void t.take(1)!.then(() => started.push('third'));
    void t.take(1)!.then(() => started.push('fourth'));
    await settled();
    expect(started).toEqual([]);
    expect(t.load(1)).toEqual({ running: 2, waiting: 2 });
    first();
    await settled();
    expect(started).toEqual(['third']);
    expect(t.load(1)).toEqual({ running: 2, waiting: 1 });
  });

  it('never makes another organization wait for the first one’s line', async () => {
    const t = turns(1, 10);
    await t.take(1)!;
    void t.take(1);
    const other = t.take(2);
    expect(other).not.toBeNull();
    await expect(other).resolves.toEqual(expect.any(Function));
    expect(t.load(2)).toEqual({ running: 1, waiting: 0 });
  });

  it('answers null once the organization’s line is full', async () => {
    const t = turns(1, 1);
    await t.take(1)!;
    expect(t.take(1)).not.toBeNull();
    expect(t.take(1)).toBeNull();
  });

  it('ends a turn once however often it is ended, and forgets an organization with nothing left', async () => {
    const t = turns(2, 10);
    const end = await t.take(1)!;
    await t.take(1)!;
    end();
    end();
    expect(t.load(1)).toEqual({ running: 1, waiting: 0 });
  });

  it('tells whether another organization has a request in progress or had one end lately', async () => {
    const t = turns(2, 10);
    expect(t.othersServed(1, 250)).toBe(false);
    const end = await t.take(2)!;
    expect([t.othersServed(1, 250), t.othersServed(2, 250)]).toEqual([true, false]);
    end();
    expect(t.othersServed(1, 250)).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect([t.othersServed(1, 250), t.othersServed(1, 10)]).toEqual([true, false]);
  });

  it('forgets a request’s end after a second', async () => {
    const t = turns(2, 10);
    (await t.take(2)!)();
    await new Promise((r) => setTimeout(r, 1100));
    (await t.take(3)!)(); // an end a second later forgets the older ones
    expect([t.othersServed(1, 60_000), t.othersServed(3, 60_000)]).toEqual([true, false]);
  });
});
