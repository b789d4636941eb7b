import { flatObjectProblem, isIsoDatetime, isTimeZone, normalizeOffset } from './validators.js';

describe('isTimeZone', () => {
  it.each(['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe'])('accepts %s', (zone) => {
    expect(isTimeZone(zone)).toBe(true);
  });

  it.each(['', 'Mars/Olympus_Mons', 'America/Nowhere', 'not a zone', '+25:00'])('rejects %j', (zone) => {
    expect(isTimeZone(zone)).toBe(false);
  });

  it.each([null, undefined, 0, 5, true, {}, ['UTC']])('rejects the non-string %j', (value) => {
    expect(isTimeZone(value)).toBe(false);
  });
});

describe('flatObjectProblem', () => {
  it('accepts an empty object', () => {
    expect(flatObjectProblem({})).toBeNull();
  });

  it('accepts booleans, strings, integers, decimals and datetime strings', () => {
    expect(
      flatObjectProblem({ plan: 'gold', age: 34, ratio: 0.25, negative: -3, newsletter: true, off: false, signed_up: '2026-01-05T10:00:00Z', empty: '' }),
    ).toBeNull();
  });

  it.each([null, undefined, 'text', 5, true, [], [{ a: 1 }]])('rejects the non-object %j', (value) => {
    expect(flatObjectProblem(value)).toBe('must be an object');
  });

  it.each([
    ['a nested object', { profile: { plan: 'gold' } }],
    ['an array', { tags: ['vip'] }],
    ['null', { plan: null }],
    ['NaN', { score: Number.NaN }],
    ['Infinity', { score: Number.POSITIVE_INFINITY }],
  ])('rejects a member holding %s and names the member', (_label, value) => {
    const problem = flatObjectProblem(value);
    expect(problem).not.toBeNull();
    expect(problem).toContain(`"${Object.keys(value)[0]}"`);
  });

  it('names the offending member, not the valid ones around it', () => {
    const problem = flatObjectProblem({ plan: 'gold', bad: { x: 1 }, age: 3 });
    expect(problem).toContain('"bad"');
    expect(problem).not.toContain('"plan"');
  });

  it('rejects an empty key and a key over 100 characters, accepts one of 100', () => {
    expect(flatObjectProblem({ '': 'x' })).not.toBeNull();
    expect(flatObjectProblem({ ['k'.repeat(101)]: 'x' })).not.toBeNull();
    expect(flatObjectProblem({ ['k'.repeat(100)]: 'x' })).toBeNull();
  });
});

describe('isIsoDatetime', () => {
  it.each([
    '2026-01-05T10:00:00Z',
    '2026-01-05T10:00:00.000Z',
    '2026-01-05T10:00:00.000+02:00',
    '2026-01-05T10:00:00-05:00',
    '2026-01-05T10:00:00+0200',
    '2026-01-05 10:00:00 +0200',
    '2026-01-05 10:00:00 -0530',
    '2026-01-05T10:00Z',
    '2024-02-29T10:00:00Z',
  ])('accepts %s', (value) => {
    expect(isIsoDatetime(value)).toBe(true);
  });

  it.each([
    '',
    'yesterday',
    '2026-01-05',
    '10:00:00',
    '2026/01/05 10:00:00',
    '05-01-2026 10:00:00',
    '2026-1-5T10:00:00Z',
    '2026-01-05T10:00:00+2',
    '2026-01-05T10:00:00 UTC',
    '2026-01-05T10:00:00Zjunk',
    ' 2026-01-05T10:00:00Z',
    '2026-13-05T10:00:00Z',
    '2026-00-05T10:00:00Z',
    '2026-01-32T10:00:00Z',
    '2026-01-05T25:00:00Z',
    '2026-01-05T10:60:00Z',
    '2026-01-05T10:00:60Z',
    '2026-01-05T10:00:00+25:00',
    '2026-01-05T10:00:00+02:60',
  ])('rejects %j', (value) => {
    expect(isIsoDatetime(value)).toBe(false);
  });

  // Contract §2: a bad date is 400 validation. These match the pattern but name days that do not exist.
  it.each(['2026-02-30T10:00:00Z', '2026-02-31T10:00:00Z', '2025-02-29T10:00:00Z', '2026-04-31T10:00:00Z', '2026-06-31 10:00:00 +0200'])(
    'rejects the impossible calendar date %s',
    (value) => {
      expect(isIsoDatetime(value)).toBe(false);
    },
  );

  it.each([null, undefined, 1767607200000, new Date('2026-01-05T10:00:00Z'), {}])('rejects the non-string %j', (value) => {
    expect(isIsoDatetime(value)).toBe(false);
  });
});

describe('normalizeOffset', () => {
  it('turns the seed form into ISO 8601', () => {
    expect(normalizeOffset('2026-01-05 10:00:00 +0200')).toBe('2026-01-05T10:00:00+02:00');
    expect(normalizeOffset('2026-01-05 10:00:00 -0530')).toBe('2026-01-05T10:00:00-05:30');
  });

  it('adds the colon to a compact offset', () => {
    expect(normalizeOffset('2026-01-05T10:00:00+0200')).toBe('2026-01-05T10:00:00+02:00');
  });

  it('leaves ISO 8601 values as they are', () => {
    expect(normalizeOffset('2026-01-05T10:00:00Z')).toBe('2026-01-05T10:00:00Z');
    expect(normalizeOffset('2026-01-05T10:00:00.000+02:00')).toBe('2026-01-05T10:00:00.000+02:00');
    expect(normalizeOffset('2026-01-05T10:00:00-05:00')).toBe('2026-01-05T10:00:00-05:00');
  });

  it('makes every accepted form of one instant parse to the same time', () => {
    const instant = Date.parse('2026-01-05T08:00:00Z');
    for (const value of ['2026-01-05T10:00:00.000+02:00', '2026-01-05 10:00:00 +0200', '2026-01-05T10:00:00+0200', '2026-01-05T08:00:00Z']) {
      expect(new Date(normalizeOffset(value)).getTime()).toBe(instant);
    }
  });

  it('keeps the date of a negative offset intact', () => {
    expect(new Date(normalizeOffset('2026-01-05 22:30:00 -0500')).toISOString()).toBe('2026-01-06T03:30:00.000Z');
  });
});
