import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested, ValidationError } from 'class-validator';
import { AppError } from '../errors/app-error.js';
import { AppValidationPipe, toAppError, withoutProperty } from './validation.pipe.js';
import { IsTimeZone, Required } from './validators.js';

class ProfileInput {
  @Required()
  @IsString()
  @Length(1, 50)
  external_id: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  division_id?: number;

  @IsOptional()
  @IsTimeZone()
  time_zone?: string;
}

class ItemInput {
  @Required()
  @IsString()
  name: string;

  @IsOptional()
  @IsInt()
  quantity?: number;
}

class ProfileBody {
  @Required()
  @ValidateNested()
  @Type(() => ProfileInput)
  user: ProfileInput;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ItemInput)
  items?: ItemInput[];

  @IsOptional()
  @IsBoolean()
  notify?: boolean;
}

class ListQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 10;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page: number = 1;

  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

const pipe = new AppValidationPipe();
const body: ArgumentMetadata = { type: 'body', metatype: ProfileBody, data: '' };
const query: ArgumentMetadata = { type: 'query', metatype: ListQuery, data: '' };

/** The AppError the pipe rejects with; fails the test when the value passes or something else is thrown. */
async function rejection(value: unknown, metadata: ArgumentMetadata = body): Promise<AppError> {
  let result: unknown;
  try {
    result = await pipe.transform(value, metadata);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`the pipe accepted ${JSON.stringify(value)} as ${JSON.stringify(result)}`);
}

/** The distinct fields named in details (duplicates are checked separately, in the "one detail per field" cases). */
const fields = (error: AppError) => [...new Set((error.details ?? []).map((d) => d.field))].sort();

describe('AppValidationPipe on bodies', () => {
  it('passes a valid body through as an instance of the DTO', async () => {
    const result = await pipe.transform(
      { user: { external_id: 'c-1', division_id: 7, time_zone: 'America/New_York' }, items: [{ name: 'a', quantity: 2 }], notify: true },
      body,
    );
    expect(result).toBeInstanceOf(ProfileBody);
    const typed = result as ProfileBody;
    expect(typed.user).toBeInstanceOf(ProfileInput);
    expect(typed.user).toEqual({ external_id: 'c-1', division_id: 7, time_zone: 'America/New_York' });
    expect(typed.items?.[0]).toBeInstanceOf(ItemInput);
    expect(typed.notify).toBe(true);
  });

  describe('unknown members → argument_error', () => {
    it('at the top level, naming the field', async () => {
      const error = await rejection({ user: { external_id: 'c-1' }, foo: 1 });
      expect(error.code).toBe('argument_error');
      expect(error.status).toBe(400);
      expect(fields(error)).toEqual(['foo']);
      expect(error.message).toContain('foo');
    });

    it('inside a nested object, with the dotted path', async () => {
      const error = await rejection({ user: { external_id: 'c-1', foo: 'x' } });
      expect(error.code).toBe('argument_error');
      expect(fields(error)).toEqual(['user.foo']);
      expect(error.message).toContain('user.foo');
    });

    it('inside an array element, with the index in the path', async () => {
      const error = await rejection({ user: { external_id: 'c-1' }, items: [{ name: 'a' }, { name: 'b', colour: 'red' }] });
      expect(error.code).toBe('argument_error');
      expect(fields(error)).toEqual(['items.1.colour']);
    });

    it('listing every unknown member at once', async () => {
      const error = await rejection({ user: { external_id: 'c-1', bar: 2 }, foo: 1, baz: 3 });
      expect(error.code).toBe('argument_error');
      expect(fields(error)).toEqual(['baz', 'foo', 'user.bar']);
      for (const field of ['foo', 'baz', 'user.bar']) expect(error.message).toContain(field);
      for (const detail of error.details ?? []) expect(detail.message).toEqual(expect.any(String));
    });

    it('even when other members are also invalid or missing', async () => {
      const error = await rejection({ user: { division_id: 'seven', foo: 1 } });
      expect(error.code).toBe('argument_error');
      expect(fields(error)).toEqual(['user.foo']);
    });
  });

  describe('required members absent → missing_data', () => {
    it('a missing wrapper', async () => {
      const error = await rejection({});
      expect(error.code).toBe('missing_data');
      expect(error.status).toBe(400);
      expect(fields(error)).toEqual(['user']);
      expect(error.message).toContain('user');
    });

    it('a wrapper given as null', async () => {
      const error = await rejection({ user: null });
      expect(error.code).toBe('missing_data');
      expect(fields(error)).toEqual(['user']);
    });

    it('a missing wrapper wins over unknown members beside it, reserved names included', async () => {
      for (const value of [{ external_id: 'c-1' }, { external_id: 'c-1', foo: 1 }, { user: null, foo: 1 }, JSON.parse('{"constructor":{"a":1}}')]) {
        const error = await rejection(value);
        expect(error.code).toBe('missing_data');
        expect(fields(error)).toEqual(['user']);
      }
    });

    it('a missing nested field, with the dotted path', async () => {
      const error = await rejection({ user: { division_id: 3 } });
      expect(error.code).toBe('missing_data');
      expect(fields(error)).toEqual(['user.external_id']);
      expect(error.message).toContain('user.external_id');
    });

    it('a missing field in an array element', async () => {
      const error = await rejection({ user: { external_id: 'c-1' }, items: [{ name: 'a' }, { quantity: 1 }] });
      expect(error.code).toBe('missing_data');
      expect(fields(error)).toEqual(['items.1.name']);
    });

    it('takes precedence over invalid values elsewhere', async () => {
      const error = await rejection({ user: { division_id: 0 }, notify: 'yes' });
      expect(error.code).toBe('missing_data');
      expect(fields(error)).toEqual(['user.external_id']);
    });
  });

  describe('present but invalid → validation', () => {
    it('a wrong type in a nested field, with the dotted path and a message without the bare property name', async () => {
      const error = await rejection({ user: { external_id: 'c-1', division_id: 'seven' } });
      expect(error.code).toBe('validation');
      expect(error.status).toBe(400);
      expect(fields(error)).toEqual(['user.division_id']);
      for (const detail of error.details ?? []) {
        expect(detail.message.length).toBeGreaterThan(0);
        expect(detail.message.startsWith('division_id')).toBe(false);
      }
      expect(error.message).toContain('user.division_id');
    });

    it('an out-of-range value', async () => {
      const error = await rejection({ user: { external_id: 'c-1', division_id: 0 } });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['user.division_id']);
    });

    it('an unknown time zone', async () => {
      const error = await rejection({ user: { external_id: 'c-1', time_zone: 'Mars/Olympus_Mons' } });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['user.time_zone']);
    });

    it('a string that is too long', async () => {
      const error = await rejection({ user: { external_id: 'x'.repeat(51) } });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['user.external_id']);
    });

    it('a wrapper that is not an object', async () => {
      const error = await rejection({ user: 'c-1' });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['user']);
    });

    it('an invalid field in an array element', async () => {
      const error = await rejection({ user: { external_id: 'c-1' }, items: [{ name: 'a', quantity: 1.5 }] });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['items.0.quantity']);
    });

    it('every offending field in details and in the message', async () => {
      const error = await rejection({ user: { external_id: 5, division_id: 'x' }, notify: 'yes' });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['notify', 'user.division_id', 'user.external_id']);
      for (const field of ['notify', 'user.division_id', 'user.external_id']) expect(error.message).toContain(field);
    });

    // Contract §2: `details` holds one entry per offending field, even when a value breaks several constraints.
    it('one detail per offending field when a value breaks several constraints', async () => {
      const error = await rejection({ user: { external_id: 5, division_id: 'x' }, notify: 'yes' });
      expect(error.details?.map((d) => d.field).sort()).toEqual(['notify', 'user.division_id', 'user.external_id']);
    });

    it('does not convert strings to numbers or booleans in a body', async () => {
      const error = await rejection({ user: { external_id: 'c-1', division_id: '7' }, notify: 'true' });
      expect(error.code).toBe('validation');
      expect(fields(error)).toEqual(['notify', 'user.division_id']);
    });
  });
});

describe('AppValidationPipe on query strings', () => {
  it('converts numeric parameters from strings', async () => {
    const result = (await pipe.transform({ limit: '25', page: '3' }, query)) as ListQuery;
    expect(result).toBeInstanceOf(ListQuery);
    expect(result.limit).toBe(25);
    expect(result.page).toBe(3);
  });

  it('fills defaults for absent parameters', async () => {
    const result = (await pipe.transform({}, query)) as ListQuery;
    expect(result.limit).toBe(10);
    expect(result.page).toBe(1);
  });

  it('answers every empty query string alike: an instance with its defaults (the second one without re-validating)', async () => {
    for (let i = 0; i < 3; i += 1) {
      const result = (await pipe.transform({}, query)) as ListQuery;
      expect(result).toBeInstanceOf(ListQuery);
      expect(result).toMatchObject({ limit: 10, page: 1 });
    }
  });

  it('rejects an empty query string every time when the DTO requires a parameter', async () => {
    const required: ArgumentMetadata = { type: 'query', metatype: ItemInput, data: '' };
    for (let i = 0; i < 2; i += 1) {
      const error = await rejection({}, required);
      expect(error.code).toBe('missing_data');
      expect(fields(error)).toEqual(['name']);
    }
  });

  it('ignores unknown parameters instead of rejecting them', async () => {
    const result = (await pipe.transform({ limit: '5', _: '1712345678', utm_source: 'mail' }, query)) as ListQuery;
    expect(result.limit).toBe(5);
    expect(result).not.toHaveProperty('_');
    expect(result).not.toHaveProperty('utm_source');
  });

  it('one detail for a parameter that breaks several constraints', async () => {
    const error = await rejection({ limit: 'ten' }, query);
    expect(error.details?.map((d) => d.field)).toEqual(['limit']);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ page: '0' }, 'page'],
    [{ order: 'sideways' }, 'order'],
  ])('still validates known parameters: %j', async (value, field) => {
    const error = await rejection(value, query);
    expect(error.code).toBe('validation');
    expect(fields(error)).toEqual([field]);
  });

  it('validates known parameters even next to unknown ones', async () => {
    const error = await rejection({ limit: '500', cache_buster: 'x' }, query);
    expect(error.code).toBe('validation');
    expect(fields(error)).toEqual(['limit']);
  });

  it('keeps rejecting unknown members for the same DTO when it is a body', async () => {
    const error = await rejection({ limit: 5, extra: 1 }, { type: 'body', metatype: ListQuery, data: '' });
    expect(error.code).toBe('argument_error');
    expect(fields(error)).toEqual(['extra']);
  });
});

describe('toAppError', () => {
  function validationError(property: string, constraints: Record<string, string>, children: ValidationError[] = []): ValidationError {
    return Object.assign(new ValidationError(), { property, constraints, children });
  }

  it('maps whitelist failures to argument_error with dotted fields', () => {
    const error = toAppError([
      validationError('campaign', {}, [validationError('colour', { whitelistValidation: 'property colour should not exist' })]),
    ]);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('argument_error');
    expect(error.details?.map((d) => d.field)).toEqual(['campaign.colour']);
  });

  it('maps isDefined failures to missing_data', () => {
    const error = toAppError([validationError('campaign', {}, [validationError('name', { isDefined: 'name is required' })])]);
    expect(error.code).toBe('missing_data');
    expect(error.details).toEqual([{ field: 'campaign.name', message: expect.any(String) }]);
  });

  it('maps other constraints to validation, stripping the leading property name from the message', () => {
    const error = toAppError([validationError('campaign', {}, [validationError('name', { isString: 'name must be a string' })])]);
    expect(error.code).toBe('validation');
    expect(error.details).toEqual([{ field: 'campaign.name', message: 'must be a string' }]);
    expect(error.message).toContain('campaign.name must be a string');
  });

  // Contract §2: one entry per offending field.
  it('gives one detail for a field with several failed constraints', () => {
    const error = toAppError([
      validationError('campaign', {}, [validationError('name', { isString: 'name must be a string', isLength: 'name must be shorter' })]),
    ]);
    expect(error.code).toBe('validation');
    expect(error.details).toHaveLength(1);
    expect(error.details?.[0].field).toBe('campaign.name');
    expect(error.details?.[0].message).toContain('must be a string');
  });

  // Found by the fuzzer: the member name went into a RegExp unescaped, so a body member named "(" answered 500.
  it('takes member names that are RegExp syntax as plain text', () => {
    const error = toAppError([
      validationError('(', { whitelistValidation: 'property ( should not exist' }),
      validationError('a[', { isString: 'a[ must be a string' }),
    ]);
    expect(error.code).toBe('argument_error');
    expect(error.details?.map((d) => d.field)).toEqual(['(']);
    expect(toAppError([validationError('a.b', { isString: 'a.b must be a string' })]).details).toEqual([{ field: 'a.b', message: 'must be a string' }]);
  });

  it('joins a message naming a member inside the field to it without a space', () => {
    const error = toAppError([validationError('events', { isEventsMap: 'events.purchase.store_id must be at most 1024 characters' })]);
    expect(error.details).toEqual([{ field: 'events', message: '.purchase.store_id must be at most 1024 characters' }]);
    expect(error.message).toBe('events.purchase.store_id must be at most 1024 characters');
    expect(toAppError([validationError('events', { isEventsMap: 'events[0] must be an object' })]).message).toBe('events[0] must be an object');
  });

  it('keeps only field and message in details', () => {
    const error = toAppError([validationError('limit', { min: 'limit must not be less than 1' })]);
    for (const detail of error.details ?? []) expect(Object.keys(detail).sort()).toEqual(['field', 'message']);
  });
});

describe('withoutProperty', () => {
  it.each([
    ['name must be a string', 'name', 'must be a string'],
    ['events has an event name that is too long', 'events', 'has an event name that is too long'],
    ['events[0] must be an object', 'events', '[0] must be an object'],
    ['names must be unique', 'name', 'names must be unique'],
    ['name', 'name', 'name'],
    ['property [ should not exist', '[', 'property [ should not exist'],
    // As with \b: after a name ending in a non-word character, a space is no boundary, so the message stays whole.
    ['(a+)+$ must be a string', '(a+)+$', '(a+)+$ must be a string'],
    ['*x must be a string', '*x', 'must be a string'],
  ])('%j less %j → %j', (message, property, expected) => {
    expect(withoutProperty(message, property)).toBe(expected);
  });
});

describe('AppValidationPipe on member names that are not identifiers', () => {
  it.each(['[', '*', '(a+)+$', '\\', 'a.b', '${x}'])('answers argument_error for an unknown member named %j', async (name) => {
    const error = await rejection({ user: { external_id: 'c-1', [name]: 1 } });
    expect(error.code).toBe('argument_error');
    expect(fields(error)).toEqual([`user.${name}`]);
  });

  it('answers one detail per field, also for an array of many items where an object belongs', async () => {
    const error = await rejection({ user: Array(5_000).fill(1) });
    expect(error.code).toBe('validation');
    const named = (error.details ?? []).map((d) => d.field);
    expect(named).toEqual([...new Set(named)]);
  });
});

describe('AppValidationPipe checks the shape of every DTO body first', () => {
  it.each<[string, unknown, string]>([
    ['a reserved member name, which class-transformer would drop', JSON.parse('{"user":{"external_id":"c-1","constructor":"x"}}'), 'argument_error'],
    ['NUL in a string', { user: { external_id: 'a\u0000' } }, 'validation'],
    ['nesting deeper than 32 levels', { user: { external_id: 'c-1', extra: JSON.parse('['.repeat(40) + ']'.repeat(40)) } }, 'validation'],
    ['an object of more than 1,000 members', { user: Object.fromEntries(Array.from({ length: 1_001 }, (_v, i) => [`k${i}`, i])) }, 'payload_too_large'],
  ])('%s', async (_label, value, code) => {
    const error = await rejection(value);
    expect(error.code).toBe(code);
  });

  it('leaves a body without a DTO class to its route (V2 answers missing_data naming the event)', async () => {
    const pipe = new AppValidationPipe();
    const body = { events: [{ name: 'a\u0000', context: JSON.parse('['.repeat(40) + ']'.repeat(40)) }] };
    await expect(pipe.transform(body, { type: 'body', metatype: Object })).resolves.toBe(body);
  });
});

describe('AppValidationPipe on path values', () => {
  const pipe = new AppValidationPipe();
  const id: ArgumentMetadata = { type: 'param', metatype: Number, data: 'campaign_id' };

  it.each(['1', '01', '1.0', '0x1', '+1', '1e0', ' 1', 'abc'])('leaves %j as sent for the route to read, even when the handler takes a number', async (value) => {
    await expect(pipe.transform(value, id)).resolves.toBe(value);
  });

  it('answers a path value with NUL as the empty string, which names nothing', async () => {
    await expect(pipe.transform('1\u0000', id)).resolves.toBe('');
    await expect(pipe.transform('c\u0000', { type: 'param', metatype: String, data: 'external_id' })).resolves.toBe('');
  });
});
