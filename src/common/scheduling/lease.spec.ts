import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { leaseHeartbeat } from './lease.js';

const EVERY_MS = 5;

describe('leaseHeartbeat', () => {
  it('renews on its timer until stopped, one renewal at a time; a failed renewal is left to the next', async () => {
    let calls = 0;
    let running = 0;
    let most = 0;
    const lease = leaseHeartbeat(EVERY_MS, async () => {
      calls += 1;
      running += 1;
      most = Math.max(most, running);
      await sleep(EVERY_MS * 3);
      running -= 1;
      if (calls === 1) throw new Error('connection lost');
      return true;
    });
    // Until the failed first renewal and a second have run (a loaded machine runs timers late: bounded, not timed).
    for (let waited = 0; calls < 2 && waited < 10_000; waited += EVERY_MS) await sleep(EVERY_MS);
    lease.stop();
    await sleep(EVERY_MS * 4);
    const stoppedAt = calls;
    await sleep(EVERY_MS * 10);
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBe(stoppedAt);
    expect(most).toBe(1);
    expect(lease.lost()).toBe(false);
  });

  it('is lost once a renewal finds the row no longer the runner’s, and stays lost', async () => {
    const answers = [true, false, true];
    const lease = leaseHeartbeat(EVERY_MS, async () => answers.shift() ?? true);
    expect(lease.lost()).toBe(false);
    while (answers.length > 0) await sleep(EVERY_MS);
    await sleep(EVERY_MS);
    lease.stop();
    expect(lease.lost()).toBe(true);
  });
});
