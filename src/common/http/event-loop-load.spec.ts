import { EventLoopLoad } from './event-loop-load.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until); // the loop runs nothing else meanwhile
};

describe('EventLoopLoad', () => {
  it('reads 0 before its first sample, near 1 while the loop is kept busy, and falls once it idles', async () => {
    const load = new EventLoopLoad();
    try {
      expect(load.utilization()).toBe(0); // the first reading starts the sampling
      for (let i = 0; i < 6; i += 1) {
        spin(100);
        await sleep(1); // lets the sampling timer run between the busy stretches
      }
      expect(load.utilization()).toBeGreaterThan(0.8);
      // The window's ten samples idle, and some; a loaded machine runs the sampling timer late: bounded, not timed.
      await sleep(1300);
      for (let waited = 0; load.utilization() >= 0.3 && waited < 10_000; waited += 100) await sleep(100);
      expect(load.utilization()).toBeLessThan(0.3);
    } finally {
      load.onModuleDestroy();
    }
  });
});
