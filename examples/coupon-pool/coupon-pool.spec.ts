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
    const effects: unknown[] = [];
    const ctx = { effect: (payload: unknown) => effects.push(payload), credit: () => undefined } as unknown as RewardContext;
    new CouponReward().apply(ctx, { pool: 'SUMMER', creative_id: 40 });
    expect(effects).toEqual([{ pool: 'SUMMER', creative_id: 40 }]);
  });
});
