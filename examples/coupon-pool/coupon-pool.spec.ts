import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { RewardContext } from '../../src/extension-api/index.js';
import { CouponArgs, CouponReward } from './coupon-pool.module.js';

const problems = (args: object) => validateSync(plainToInstance(CouponArgs, args)).map((e) => e.property);

describe('the coupon reward (examples/coupon-pool)', () => {
  it('takes a pool name and a creative id, and refuses others', () => {
    expect(problems({ pool: 'SUMMER', creative_id: 40 })).toEqual([]);
    expect(problems({ pool: 'summer sale!', creative_id: 0 })).toEqual(['pool', 'creative_id']);
  });

  it('awards nothing in the evaluation but asks for its effect, with the pool and the creative', () => {
    // Every call the reward makes on its context, in order: what it awards (points, an offer, a tier, a raised event)
    // and the effect it asks for. Notes (its explanation) award nothing and are not counted.
    const calls: Array<[string, ...unknown[]]> = [];
    const record =
      (name: string, answer?: unknown) =>
      (...args: unknown[]) => {
        calls.push([name, ...args]);
        return answer;
      };
    const ctx = {
      credit: record('credit'),
      issueOffer: record('issueOffer', true),
      liftTier: record('liftTier', true),
      raise: record('raise'),
      effect: record('effect'),
      note: () => undefined,
    } as unknown as RewardContext;
    new CouponReward().apply(ctx, { pool: 'SUMMER', creative_id: 40 });
    expect(calls).toEqual([['effect', { pool: 'SUMMER', creative_id: 40 }]]);
  });
});
