import { DEFAULT_LIMITS, useLimits } from '../../config/limits.js';
import { eventsProblem } from './events-body.js';
import { parseV2Body } from './v2-events.js';
import { AppError } from '../../common/errors/app-error.js';

const USER = '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a';
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];
const PROTOTYPE_MESSAGE = 'must not be a prototype key (__proto__, constructor, prototype)';

/** An object holding one member named `name`: JSON.parse makes even `__proto__` an own member, as a request body does. */
const withMember = (name: string, value: unknown, others: Record<string, unknown> = {}) =>
  JSON.parse(JSON.stringify({ ...others, [`@${name}`]: value }).replace(`"@${name}"`, JSON.stringify(name))) as Record<string, unknown>;

function v2Rejection(events: unknown): AppError {
  try {
    parseV2Body({ events }, Date.now());
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not rejected');
}

afterEach(() => useLimits({ ...DEFAULT_LIMITS }));

describe('V1 events (eventsProblem): contract §18', () => {
  it('takes attribute and context strings of 1,024 characters, and names the member of 1,025', () => {
    const at = 'x'.repeat(1024);
    expect(eventsProblem({ purchase: { store_id: at, context: { channel: at } } })).toBeNull();
    expect(eventsProblem({ purchase: { store_id: `${at}y` } })).toBe('events.purchase.store_id must be at most 1024 characters (LIMIT_ATTRIBUTE_LENGTH)');
    expect(eventsProblem({ purchase: [{ a: 1 }, { context: { channel: `${at}y` } }] })).toBe(
      'events.purchase[1].context.channel must be at most 1024 characters (LIMIT_ATTRIBUTE_LENGTH)',
    );
  });

  it('counts characters, not UTF-16 units: 1,024 emoji are within the limit', () => {
    expect(eventsProblem({ purchase: { note: '😀'.repeat(1024) } })).toBeNull();
    expect(eventsProblem({ purchase: { note: '😀'.repeat(1025) } })).toMatch(/^events\.purchase\.note must be at most 1024 characters/);
  });

  it('reads the limit of this process', () => {
    useLimits({ ...DEFAULT_LIMITS, attributeLength: 3 });
    expect(eventsProblem({ purchase: { store_id: 'abc' } })).toBeNull();
    expect(eventsProblem({ purchase: { store_id: 'abcd' } })).toBe('events.purchase.store_id must be at most 3 characters (LIMIT_ATTRIBUTE_LENGTH)');
  });

  it('refuses prototype keys as event names and as names of attributes and context members', () => {
    for (const key of PROTOTYPE_KEYS) {
      expect(eventsProblem(withMember(key, 1))).toBe(`events.${key} is refused: an event name ${PROTOTYPE_MESSAGE}`);
      expect(eventsProblem({ purchase: withMember(key, 'x') })).toBe(`events.purchase.${key} is refused: a member name ${PROTOTYPE_MESSAGE}`);
      expect(eventsProblem({ purchase: { context: withMember(key, 'x') } })).toBe(`events.purchase.context.${key} is refused: a member name ${PROTOTYPE_MESSAGE}`);
    }
    expect(eventsProblem({ Constructor: { proto: 'x', context: { prototypes: 'y' } } })).toBeNull();
  });

  it('takes 100 instances by default, and the limit of this process', () => {
    expect(eventsProblem({ visit: Array.from({ length: 100 }, () => ({})) })).toBeNull();
    expect(eventsProblem({ visit: Array.from({ length: 100 }, () => ({})), open: 1 })).toBe('events may hold at most 100 event instances per request (LIMIT_V1_INSTANCES)');
    useLimits({ ...DEFAULT_LIMITS, v1Instances: 2 });
    expect(eventsProblem({ visit: [{}, {}] })).toBeNull();
    expect(eventsProblem({ visit: [{}, {}], open: 3 })).toBe('events may hold at most 2 event instances per request (LIMIT_V1_INSTANCES)');
  });
});

describe('V2 events (parseV2Body): contract §18', () => {
  const event = (extra: Record<string, unknown> = {}) => ({ name: 'purchase', user_id: USER, ...extra });

  it('takes context strings of 1,024 characters, and answers validation naming each member over it', () => {
    const at = 'x'.repeat(1024);
    expect(parseV2Body({ events: event({ context: { store_id: at } }) }, 0)[0].context.store_id).toBe(at);
    const error = v2Rejection([event({ context: { store_id: `${at}y` } }), event(), event({ context: { a: 1, note: 'z'.repeat(100_000) } })]);
    expect({ code: error.code, details: error.details }).toEqual({
      code: 'validation',
      details: [
        { field: 'events[0].context.store_id', message: 'must be at most 1024 characters (LIMIT_ATTRIBUTE_LENGTH)' },
        { field: 'events[2].context.note', message: 'must be at most 1024 characters (LIMIT_ATTRIBUTE_LENGTH)' },
      ],
    });
  });

  it('refuses prototype keys as event names and context member names', () => {
    for (const key of PROTOTYPE_KEYS) {
      const error = v2Rejection([event({ name: key }), event({ context: withMember(key, 'x', { a: 1 }) })]);
      expect({ code: error.code, details: error.details }).toEqual({
        code: 'validation',
        details: [
          { field: 'events[0].name', message: PROTOTYPE_MESSAGE },
          { field: `events[1].context.${key}`, message: `is refused: a member name ${PROTOTYPE_MESSAGE}` },
        ],
      });
    }
    expect(parseV2Body({ events: event({ name: 'Constructor', context: { proto: 'x' } }) }, 0)).toHaveLength(1);
    // A malformed event in the batch is missing_data first, as before.
    expect(v2Rejection([event({ name: '__proto__' }), { name: 'x' }]).code).toBe('missing_data');
  });
});
