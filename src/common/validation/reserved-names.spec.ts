import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { hasPrototypeKeySegment, IsNotPrototypeKey, isPrototypeKey, PROTOTYPE_KEY_MESSAGE } from './reserved-names.js';

class Named {
  @IsNotPrototypeKey()
  name?: unknown;
}

function messages(name: unknown): string[] {
  return validateSync(plainToInstance(Named, { name })).flatMap((error) => Object.values(error.constraints ?? {}));
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
