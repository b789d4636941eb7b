import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { RewardContext } from '../../src/extension-api/index.js';
import { ReferArgs, ReferralBonus, ReferralBonusArgs } from './referral.module.js';

const problems = (cls: new () => object, args: object) => validateSync(plainToInstance(cls, args)).map((e) => e.property);

describe('the referral program (examples/referral)', () => {
  it("refer takes the referrer's user_id; the bonus a cap from 1 to 1000", () => {
    expect(problems(ReferArgs, { referrer_id: '5b1f5c1e-8e55-4a57-a2a5-5d1f0a9c1e77' })).toEqual([]);
    expect(problems(ReferArgs, { referrer_id: 'bob' })).toEqual(['referrer_id']);
    expect(problems(ReferralBonusArgs, { cap: 5 })).toEqual([]);
    expect([problems(ReferralBonusArgs, { cap: 0 }), problems(ReferralBonusArgs, { cap: 1001 })]).toEqual([['cap'], ['cap']]);
  });

  it('the bonus credits nothing in the evaluation: it asks for its effect, with the cap', () => {
    const effects: unknown[] = [];
    const ctx = { effect: (payload: unknown) => effects.push(payload) } as unknown as RewardContext;
    new ReferralBonus().apply(ctx, { cap: 3 });
    expect(effects).toEqual([{ cap: 3 }]);
  });
});
