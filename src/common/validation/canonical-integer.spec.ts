import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import { IsOptional } from 'class-validator';
import { AppError } from '../errors/app-error.js';
import { PageQuery } from '../http/pagination.dto.js';
import { isCanonicalInteger, parseCanonicalInteger, QueryInteger } from './canonical-integer.js';
import { AppValidationPipe } from './validation.pipe.js';

const NOT_CANONICAL = ['01', '007', '00', '1.0', '1.', '.5', '0x1', '0X1', '+1', '-1', '-0', '1e0', '1E3', ' 1', '1 ', '\t1', '1\n', '', '1_000', '١', 'Infinity', 'NaN'];

describe('isCanonicalInteger and parseCanonicalInteger', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['10', 10],
    ['2147483647', 2_147_483_647],
    ['999999999999999', 999_999_999_999_999],
  ])('reads %j as %d', (text, number) => {
    expect(isCanonicalInteger(text)).toBe(true);
    expect(parseCanonicalInteger(text)).toBe(number);
  });

  it.each(NOT_CANONICAL)('refuses %j', (text) => {
    expect(isCanonicalInteger(text)).toBe(false);
    expect(parseCanonicalInteger(text)).toBeNull();
  });

  it('refuses more than 15 digits, whose number would not be exact', () => {
    expect(parseCanonicalInteger('1000000000000000')).toBeNull();
    expect(parseCanonicalInteger('9007199254740993')).toBeNull();
  });

  it.each([[1], [null], [undefined], [['1']], [{}]])('refuses the non-string %j', (value) => {
    expect(isCanonicalInteger(value)).toBe(false);
    expect(parseCanonicalInteger(value)).toBeNull();
  });
});

class CountQuery {
  @IsOptional()
  @QueryInteger(0, 50)
  count?: number;
}

describe('QueryInteger through the validation pipe', () => {
  const pipe = new AppValidationPipe();
  const page: ArgumentMetadata = { type: 'query', metatype: PageQuery, data: '' };
  const count: ArgumentMetadata = { type: 'query', metatype: CountQuery, data: '' };

  async function rejection(value: Record<string, unknown>, metadata: ArgumentMetadata): Promise<AppError> {
    const error = await pipe.transform(value, metadata).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it('turns canonical page and limit into numbers', async () => {
    const result = (await pipe.transform({ page: '3', limit: '100' }, page)) as PageQuery;
    expect(result).toBeInstanceOf(PageQuery);
    expect({ page: result.page, limit: result.limit }).toEqual({ page: 3, limit: 100 });
  });

  it('keeps the defaults when page and limit are absent', async () => {
    const result = (await pipe.transform({ other: 'x' }, page)) as PageQuery;
    expect({ page: result.page, limit: result.limit }).toEqual({ page: 1, limit: 10 });
  });

  it('accepts 0 where the range starts at 0', async () => {
    expect(((await pipe.transform({ count: '0' }, count)) as CountQuery).count).toBe(0);
  });

  it.each(['page', 'limit'])('answers 400 validation naming %s for each form that is not canonical decimal', async (name) => {
    for (const text of ['01', '1.0', '0x1', '+1', '1e0', '', ' 1', '1 ']) {
      const error = await rejection({ [name]: text }, page);
      expect({ text, status: error.status, code: error.code, details: error.details }).toEqual({
        text,
        status: 400,
        code: 'validation',
        details: [{ field: name, message: expect.stringContaining('decimal digits without sign or leading zero') }],
      });
    }
  });

  it('answers 400 validation for a repeated parameter and for the array form', async () => {
    for (const value of [['2', '3'], ['2']]) {
      const error = await rejection({ page: value }, page);
      expect({ code: error.code, fields: error.details?.map((d) => d.field) }).toEqual({ code: 'validation', fields: ['page'] });
    }
  });

  it('names every parameter that fails, out of range or not canonical', async () => {
    const error = await rejection({ page: '0', limit: '010' }, page);
    expect(error.details?.map((d) => d.field).sort()).toEqual(['limit', 'page']);
    expect(error.details?.find((d) => d.field === 'page')?.message).toBe('must be an integer from 1 to 1000000, in decimal digits without sign or leading zero');
  });
});
