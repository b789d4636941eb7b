import { AppError } from '../errors/app-error.js';
import { checkBody, dropReservedQueryMembers, HoldsNames, isStorableText } from './request-input.js';

class NamesBody {
  @HoldsNames()
  events?: Record<string, unknown>;
}

function rejection(body: unknown, dto?: object): AppError {
  try {
    checkBody(body, dto);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not rejected');
}

describe('checkBody', () => {
  it('lets ordinary bodies through, arrays and nesting included', () => {
    expect(() => checkBody({ tier: { name: 'Gold 😀', min_points: 5 }, list: [{ a: [1, 2] }] })).not.toThrow();
  });

  // Found by the fuzzer: these members were dropped without a word (Nest strips the first three, class-transformer skips the rest).
  it('answers argument_error naming every member with a reserved name, at any depth', () => {
    const body = JSON.parse('{"__proto__":1,"tier":{"constructor":1,"prototype":2},"events":{"toString":1},"list":[{"valueOf":1}]}');
    const error = rejection(body);
    expect(error.code).toBe('argument_error');
    expect(error.details?.map((d) => d.field).sort()).toEqual(['__proto__', 'events.toString', 'list[0].valueOf', 'tier.constructor', 'tier.prototype']);
  });

  // Contract §18: a name the client chooses (an event's, an attribute's, a context member's) is not a prototype key.
  it('answers validation for a prototype key among the names of a member marked HoldsNames, at any depth', () => {
    for (const [body, field] of [
      ['{"events":{"__proto__":1}}', 'events.__proto__'],
      ['{"events":{"visit":{"constructor":"x"}}}', 'events.visit.constructor'],
      ['{"events":{"visit":[{},{"context":{"prototype":"x"}}]},"toString":1}', 'events.visit[1].context.prototype'],
    ]) {
      const error = rejection(JSON.parse(body), NamesBody);
      expect({ body, code: error.code, details: error.details }).toEqual({
        body,
        code: 'validation',
        details: [{ field, message: 'is refused: a name must not be a prototype key (__proto__, constructor, prototype)' }],
      });
    }
  });

  it('keeps argument_error for other reserved names there, and for prototype keys outside such members', () => {
    expect(rejection(JSON.parse('{"events":{"toString":1}}'), NamesBody).code).toBe('argument_error');
    expect(rejection(JSON.parse('{"events":{"a":1},"constructor":1}'), NamesBody).details).toEqual([{ field: 'constructor', message: 'is a reserved name, not a known attribute' }]);
    expect(rejection(JSON.parse('{"events":{"__proto__":1}}')).code).toBe('argument_error');
    expect(() => checkBody(JSON.parse('{"events":{"Constructor":{"proto":1}}}'), NamesBody)).not.toThrow();
  });

  // Found by the fuzzer: PostgreSQL refuses NUL in text and jsonb, and unpaired surrogates in jsonb (a 500).
  it('answers validation for NUL or an unpaired surrogate in any value or member name', () => {
    for (const body of ['{"tier":{"name":"a\\u0000b"}}', '{"tier":{"name":"\\udfff x"}}', '{"events":[{"context":{"k\\u0000":1}}]}', '{"a":["\\ud800"]}']) {
      const error = rejection(JSON.parse(body));
      expect({ body, code: error.code }).toEqual({ body, code: 'validation' });
    }
    expect(rejection(JSON.parse('{"tier":{"name":"a\\u0000b"}}')).details).toEqual([{ field: 'tier.name', message: expect.any(String) }]);
  });
});

describe('isStorableText', () => {
  it('accepts paired surrogates and refuses NUL and unpaired ones', () => {
    expect([isStorableText('😀 é'), isStorableText('a\u0000'), isStorableText('\ud83d'), isStorableText('\ude00a')]).toEqual([true, false, false, false]);
  });
});

describe('dropReservedQueryMembers', () => {
  it('removes reserved names at any depth and keeps the rest', () => {
    const query: Record<string, unknown> = { page: { toString: '1' }, limit: '5', a: [{ valueOf: '1', b: '2' }] };
    dropReservedQueryMembers(query);
    expect(query).toEqual({ page: {}, limit: '5', a: [{ b: '2' }] });
  });
});
