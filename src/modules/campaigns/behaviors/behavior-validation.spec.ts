import { IsString } from 'class-validator';
import { objectCheck, useExtensionChecks } from '../../../common/validation/extension-checks.js';
import { checkBehavior } from './behavior-validation.js';

class CouponArgs {
  @IsString() pool!: string;
}

const behavior = (outcome_config: unknown[]) => ({ name: 'Visits', data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit' } }] }], outcome_config });

describe('checkBehavior: outcomes of reward kinds that extensions define', () => {
  beforeEach(() => useExtensionChecks({ rewards: new Map([['coupon', objectCheck(CouponArgs)]]), operators: new Map() }));
  afterEach(() => useExtensionChecks({ rewards: new Map(), operators: new Map() }));

  it('keeps a valid one in the stored form: its kind holding its arguments', () => {
    const checked = checkBehavior(behavior([{ points: 5 }, { coupon: { pool: 'spring' } }]));
    expect(checked.errors).toEqual({});
    expect(checked.input.outcome_config).toEqual([{ points: 5 }, { coupon: { pool: 'spring' } }]);
  });

  it('names the wrong member of its arguments under the outcome', () => {
    const checked = checkBehavior(behavior([{ coupon: { pool: 3, size: 'L' } }]));
    expect(checked.errors).toEqual({ 'outcome_config.0.coupon.pool': 'must be a string', 'outcome_config.0.coupon.size': 'is not a known attribute' });
    expect(checked.input.outcome_config).toEqual([null]);
  });

  it('refuses arguments that are not an object, and lists the kind among those an outcome may hold', () => {
    expect(checkBehavior(behavior([{ coupon: 'spring' }])).errors).toEqual({ 'outcome_config.0.coupon': 'must be an object' });
    expect(checkBehavior(behavior([{ voucher: {} }])).errors['outcome_config.0']).toBe('must hold one of deal, ad_unit, points, event, tier, coupon');
  });

  it('refuses a kind no extension registers', () => {
    useExtensionChecks({ rewards: new Map(), operators: new Map() });
    expect(checkBehavior(behavior([{ coupon: { pool: 'spring' } }])).errors['outcome_config.0']).toBe('must hold one of deal, ad_unit, points, event, tier');
  });
});
