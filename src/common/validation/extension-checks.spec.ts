import { IsInt, IsString, Min } from 'class-validator';
import { criteriaProblem } from './criteria.js';
import { extensionChecks, objectCheck, useExtensionChecks, valueCheck } from './extension-checks.js';

class CouponArgs {
  @IsString() pool!: string;
  @IsInt() @Min(1) per_customer!: number;
}

class PrefixValue {
  @IsString() value!: string;
}

describe('extension checks', () => {
  afterEach(() => useExtensionChecks({ rewards: new Map(), operators: new Map() }));

  it("checks arguments against the extension's class: each wrong member named once, unknown members refused", () => {
    const check = objectCheck(CouponArgs);
    expect(check({ pool: 'spring', per_customer: 2 })).toEqual({});
    expect(check({ pool: 7, per_customer: 0, colour: 'red' })).toEqual({
      pool: 'must be a string',
      per_customer: 'must not be less than 1',
      colour: 'is not a known attribute',
    });
    // What a member is comes before the bounds it breaks, whatever the order of the decorators.
    expect(check({ pool: 'spring', per_customer: 'ten' })).toEqual({ per_customer: 'must be an integer number' });
    expect(check('spring')).toEqual({ '': 'must be an object' });
    expect(check([{ pool: 'spring' }])).toEqual({ '': 'must be an object' });
  });

  it('takes any object for a reward kind without an arguments class', () => {
    expect(objectCheck(undefined)({ anything: [1, 2] })).toEqual({});
    expect(objectCheck(undefined)(3)).toEqual({ '': 'must be an object' });
  });

  it("checks a criterion's value as the value member of the operator's class", () => {
    expect(valueCheck(PrefixValue)('PAR')).toEqual({});
    expect(valueCheck(PrefixValue)(12)).toEqual({ value: 'must be a string' });
    expect(valueCheck(undefined)({ any: 'thing' })).toEqual({});
  });

  it("lets criteria name a registered operator, checks its value, and lists it among the operators", () => {
    useExtensionChecks({ rewards: new Map(), operators: new Map([['starts_with', valueCheck(PrefixValue)]]) });
    expect(extensionChecks().operators.has('starts_with')).toBe(true);
    expect(criteriaProblem([{ field: 'store', op: 'starts_with', value: 'PAR' }], 'goal')).toBeNull();
    expect(criteriaProblem([{ field: 'store', op: 'starts_with', value: 12 }], 'goal')).toBe('[0].value must be a string');
    expect(criteriaProblem([{ field: 'store', op: 'starts_with' }], 'goal')).toBe('[0].value is required for starts_with');
    expect(criteriaProblem([{ field: 'store', op: 'starts_with', value: Array.from({ length: 1001 }, () => 'x') }], 'goal')).toBe('[0].value may hold at most 1000 values');
    expect(criteriaProblem([{ field: 'store', op: 'ends_with', value: 'x' }], 'goal')).toBe(
      '[0].op must be one of eq, ne, gt, gte, lt, lte, in, nin, exists, contains, starts_with',
    );
  });

  it('without extensions, criteria name the built-in operators alone', () => {
    expect(criteriaProblem([{ field: 'store', op: 'starts_with', value: 'PAR' }], 'goal')).toBe('[0].op must be one of eq, ne, gt, gte, lt, lte, in, nin, exists, contains');
  });
});
