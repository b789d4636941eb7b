import { setImmediate as turn } from 'node:timers/promises';
import { inSlices } from './in-slices.js';

/** Steps that each take `ms` on the given clock, recording their order; returns how many ran. */
function* steps(count: number, ms: number, clock: { at: number }, log: string[]): Generator<void, number, void> {
  for (let i = 0; i < count; i += 1) {
    clock.at += ms;
    log.push(`step ${i}`);
    yield;
  }
  return count;
}

describe('inSlices', () => {
  it('answers the generator’s result, letting other work run between slices of the given length', async () => {
    const log: string[] = [];
    const clock = { at: 0 };
    const other = turn().then(() => log.push('other work'));
    await expect(inSlices(steps(4, 6, clock, log), 10, () => clock.at)).resolves.toBe(4);
    await other;
    // 6 ms a step: a slice ends once 10 ms have passed, after its second step.
    expect(log).toEqual(['step 0', 'step 1', 'other work', 'step 2', 'step 3']);
  });

  it('runs quick steps without pausing', async () => {
    const log: string[] = [];
    const clock = { at: 0 };
    const other = turn().then(() => log.push('other work'));
    await expect(inSlices(steps(3, 1, clock, log), 10, () => clock.at)).resolves.toBe(3);
    await other;
    expect(log).toEqual(['step 0', 'step 1', 'step 2', 'other work']);
  });
});
