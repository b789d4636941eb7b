import { bodyShapeProblem, MAX_BODY_DEPTH, MAX_ITEMS, MAX_MEMBERS } from './body-shape.js';

/** `levels` objects nested in each other under `a`, around `leaf`. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('bodyShapeProblem', () => {
  it.each([
    ['no body', undefined],
    ['a body with every JSON type', { s: 'text', n: 1.5, b: true, z: null, list: [1, 'two', { three: 3 }], o: { nested: { deeper: [] } } }],
    ['injection text', { user: { external_id: "' OR 1=1 --", tags: ['"; DROP TABLE customers; --'], attributes: { '${7*7}': '<script>' } } }],
    ['text and member names left to the DTO check and the routes (NUL, reserved names)', JSON.parse('{"__proto__":{"a":1},"name":"\\u0000"}')],
    [`${MAX_BODY_DEPTH} levels of nesting`, nested(MAX_BODY_DEPTH)],
    [`an array of ${MAX_ITEMS} items`, { list: Array(MAX_ITEMS).fill(0) }],
    [`an object of ${MAX_MEMBERS} members`, Object.fromEntries(Array.from({ length: MAX_MEMBERS }, (_v, i) => [`k${i}`, i]))],
  ])('accepts %s', (_label, body) => {
    expect(bodyShapeProblem(body)).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ['one level too deep, in objects', nested(MAX_BODY_DEPTH + 1), Array(MAX_BODY_DEPTH).fill('a').join('.')],
    ['one level too deep, in arrays', { x: JSON.parse('['.repeat(MAX_BODY_DEPTH) + ']'.repeat(MAX_BODY_DEPTH)) }, `x${'[0]'.repeat(MAX_BODY_DEPTH - 1)}`],
  ])('refuses nesting %s as validation, naming the container one level too deep', (_label, body, field) => {
    expect(bodyShapeProblem(body)).toEqual({ code: 'validation', field, message: `is nested too deeply (at most ${MAX_BODY_DEPTH} levels)` });
  });

  it('checks 100,000 levels without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(bodyShapeProblem(deep)?.code).toBe('validation');
  });

  it('refuses an array over MAX_ITEMS and an object over MAX_MEMBERS as payload_too_large', () => {
    expect(bodyShapeProblem({ events: Array(MAX_ITEMS + 1).fill(1) })).toEqual({ code: 'payload_too_large', field: 'events', message: `holds more than ${MAX_ITEMS} items` });
    const attributes = Object.fromEntries(Array.from({ length: MAX_MEMBERS + 1 }, (_v, i) => [`k${i}`, i]));
    expect(bodyShapeProblem({ user: { attributes } })).toEqual({ code: 'payload_too_large', field: 'user.attributes', message: `holds more than ${MAX_MEMBERS} members` });
  });

  it('reports the first problem in document order', () => {
    expect(bodyShapeProblem({ a: { list: Array(MAX_ITEMS + 1).fill(0) }, b: nested(MAX_BODY_DEPTH + 1) })?.field).toBe('a.list');
  });
});
