import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { HasNoPrototypeKeyFields, hasPrototypeKeySegment, IsNotPrototypeKey, isPrototypeKey, PROTOTYPE_KEY_MESSAGE } from './reserved-names.js';

class Named {
  @IsNotPrototypeKey()
  name?: unknown;
}

class Targeted {
  @HasNoPrototypeKeyFields()
  targeting?: unknown;
}

function messages(name: unknown): string[] {
  return validateSync(plainToInstance(Named, { name })).flatMap((error) => Object.values(error.constraints ?? {}));
}

function criteriaMessages(targeting: unknown): string[] {
  return validateSync(plainToInstance(Targeted, { targeting })).flatMap((error) => Object.values(error.constraints ?? {}));
}

describe('isPrototypeKey', () => {
  it('is true for exactly __proto__, constructor and prototype', () => {
    expect(['__proto__', 'constructor', 'prototype'].map(isPrototypeKey)).toEqual([true, true, true]);
  });

  it('is false for ordinary names, names that only look alike, and non-strings', () => {
    expect(['store_visit', 'Constructor', ' __proto__', 'proto', 'toString', '', 1, null, undefined].map(isPrototypeKey)).toEqual(
      new Array(9).fill(false),
    );
  });
});

describe('hasPrototypeKeySegment', () => {
  it('finds a prototype key in any segment of a dotted path', () => {
    expect(['__proto__', 'context.constructor', 'user.attributes.prototype', 'a.__proto__.b'].map(hasPrototypeKeySegment)).toEqual([true, true, true, true]);
  });

  it('is false for paths of ordinary names', () => {
    expect(['context.app_name', 'user.attributes.constructors', 'count', 'proto.type', 7].map(hasPrototypeKeySegment)).toEqual([false, false, false, false, false]);
  });
});

describe('IsNotPrototypeKey', () => {
  it('refuses a prototype key with a message naming the property and the keys', () => {
    expect(messages('constructor')).toEqual([`name ${PROTOTYPE_KEY_MESSAGE}`]);
    expect(PROTOTYPE_KEY_MESSAGE).toBe('must not be a prototype key (__proto__, constructor, prototype)');
  });

  it('accepts other names', () => {
    expect(messages('visit')).toEqual([]);
  });
});

describe('HasNoPrototypeKeyFields', () => {
  it('refuses criteria whose field names a prototype key, naming the criterion', () => {
    const targeting = [{ field: 'user.tags', op: 'contains', value: 'vip' }, { field: 'user.attributes.__proto__', op: 'exists' }];
    expect(criteriaMessages(targeting)).toEqual([`targeting[1].field names user.attributes.__proto__: an attribute name ${PROTOTYPE_KEY_MESSAGE}`]);
  });

  it('leaves other criteria, and values that are not criteria lists, to the other validators', () => {
    expect(criteriaMessages([{ field: 'user.attributes.plan', op: 'eq', value: 'constructor' }])).toEqual([]);
    expect(criteriaMessages('not a list')).toEqual([]);
    expect(criteriaMessages([null, 3])).toEqual([]);
  });
});
