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

describe('checkBehavior: outcomes of the built-in reward kinds, checked by their args classes', () => {
  it('stores each in its form: the class members only, their defaults filled in', () => {
    const checked = checkBehavior(behavior([{ deal: { id: 12 } }, { ad_unit: { id: 40 } }, { points: 10 }, { event: { name: 'done' } }, { event: { name: 'twice', by: null } }, { tier: { name: 'Gold' } }]));
    expect(checked.errors).toEqual({});
    expect(checked.input.outcome_config).toEqual([{ deal: { id: 12 } }, { ad_unit: { id: 40 } }, { points: 10 }, { event: { name: 'done', by: 1 } }, { event: { name: 'twice', by: 1 } }, { tier: { name: 'Gold' } }]);
  });

  it("answers a behavior's messages, each problem under its member", () => {
    const checked = checkBehavior(
      behavior([
        { deal: 12 },
        { ad_unit: { id: 0, created_at: 'x', size: 1 } },
        { points: null },
        { points: 'ten' },
        { event: { by: -1 } },
        { event: { name: 'constructor', by: 0 } },
        { tier: { name: '' } },
      ]),
    );
    expect(checked.errors).toEqual({
      'outcome_config.0.deal': 'must be an object {id}',
      'outcome_config.1.ad_unit.created_at': 'is answered by the service and cannot be written',
      'outcome_config.1.ad_unit.size': 'is not a known attribute',
      'outcome_config.1.ad_unit.id': 'must be an integer of at least 1',
      'outcome_config.2.points': 'is required',
      'outcome_config.3.points': 'must be an integer of at least 1',
      'outcome_config.4.event.name': 'is required',
      'outcome_config.5.event.name': 'must not be a prototype key (__proto__, constructor, prototype)',
      'outcome_config.5.event.by': 'must be a number greater than 0',
      'outcome_config.6.tier.name': 'must be a string of 1 to 255 characters',
    });
    expect(checked.input.outcome_config).toEqual([null, null, null, null, null, null, null]);
  });

  it('keeps an object with a valid member but an unknown one, so that what it names is looked up too', () => {
    const checked = checkBehavior(behavior([{ deal: { id: 12, colour: 'red' } }]));
    expect(checked.errors).toEqual({ 'outcome_config.0.deal.colour': 'is not a known attribute' });
    expect(checked.input.outcome_config).toEqual([{ deal: { id: 12 } }]);
  });
});
