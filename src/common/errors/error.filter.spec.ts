import 'reflect-metadata';
import { runInNewContext } from 'node:vm';
import { jest } from '@jest/globals';
import {
  ArgumentsHost,
  BadRequestException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  InternalServerErrorException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { AppError } from './app-error.js';
import { ErrorFilter } from './error.filter.js';
import { createLogger } from '../logging/logger.js';

interface Recorded {
  status?: number;
  body?: Record<string, unknown>;
  statusCalls: number;
  jsonCalls: number;
}

function fakeHost(options: { headersSent?: boolean } = {}) {
  const recorded: Recorded = { statusCalls: 0, jsonCalls: 0 };
  const req = { id: 'req-7f3c1b2a', method: 'GET', path: '/priv/v1/apps/abc/nowhere', url: '/priv/v1/apps/abc/nowhere' };
  const res = {
    headersSent: options.headersSent ?? false,
    status(code: number) {
      recorded.status = code;
      recorded.statusCalls += 1;
      return res;
    },
    json(body: Record<string, unknown>) {
      recorded.body = body;
      recorded.jsonCalls += 1;
      return res;
    },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => res, getNext: () => undefined }),
    getType: () => 'http',
    getArgs: () => [req, res],
    getArgByIndex: (index: number) => [req, res][index],
  } as unknown as ArgumentsHost;
  return { host, req, recorded };
}

function newFilter() {
  const logger = createLogger('silent', 'api');
  return { filter: new ErrorFilter(logger), logger };
}

/** Runs the filter and returns the status and the `errors` object of the envelope. */
function answer(exception: unknown) {
  const { filter } = newFilter();
  const { host, req, recorded } = fakeHost();
  filter.catch(exception, host);
  expect(recorded.statusCalls).toBe(1);
  expect(recorded.jsonCalls).toBe(1);
  expect(recorded.body?.status).toBe('error');
  return { status: recorded.status, body: recorded.body!, errors: recorded.body!.errors as Record<string, unknown>, req };
}

function connectionError(code: string, message = `connect ${code} 127.0.0.1:5432`): Error {
  return Object.assign(new Error(message), { code });
}

describe('ErrorFilter', () => {
  describe('AppError', () => {
    it('answers its status and the envelope with code and message', () => {
      const { status, body } = answer(new AppError('not_found', 'campaign not found'));
      expect(status).toBe(404);
      expect(body).toEqual({ status: 'error', errors: { code: 'not_found', message: 'campaign not found' } });
    });

    it('includes details when present', () => {
      const details = [
        { field: 'campaign.name', message: 'is required' },
        { field: 'campaign.starts_at', message: 'is required' },
      ];
      const { status, body } = answer(new AppError('missing_data', 'missing campaign.name, campaign.starts_at', details));
      expect(status).toBe(400);
      expect(body).toEqual({ status: 'error', errors: { code: 'missing_data', message: 'missing campaign.name, campaign.starts_at', details } });
    });

    it('leaves details out when the list is empty', () => {
      const { errors } = answer(new AppError('validation', 'bad', []));
      expect(errors).not.toHaveProperty('details');
    });

    it.each([
      ['unauthorized', 401],
      ['argument_error', 400],
      ['duplicate_transaction', 409],
      ['failed_to_perform', 422],
      ['payload_too_large', 413],
      ['rate_limited', 429],
      ['service_unavailable', 503],
      ['No_active_campaign_found', 404],
    ] as const)('%s → %i', (code, expected) => {
      const { status, errors } = answer(new AppError(code, 'message'));
      expect(status).toBe(expected);
      expect(errors.code).toBe(code);
    });

    it('keeps the exact duplicate_transaction message', () => {
      const { errors } = answer(new AppError('duplicate_transaction', 'transaction_id tx-1 has already been processed'));
      expect(errors.message).toBe('transaction_id tx-1 has already been processed');
    });
  });

  describe('unexpected errors', () => {
    it('answers 500 internal_error carrying the request id, without the original message or stack', () => {
      const original = new Error('duplicate key value violates unique constraint "pk_secret_table" password=hunter2');
      const { status, errors, body, req } = answer(original);
      expect(status).toBe(500);
      expect(errors.code).toBe('internal_error');
      expect(errors.request_id).toBe(req.id);
      expect(typeof errors.message).toBe('string');
      const text = JSON.stringify(body);
      expect(text).not.toContain('duplicate key');
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain(original.stack!.split('\n')[1].trim());
      expect(errors).not.toHaveProperty('details');
      expect(errors).not.toHaveProperty('stack');
    });

    it('logs it as an error with the request id', () => {
      const { filter, logger } = newFilter();
      const error = jest.spyOn(logger, 'error');
      const { host, req } = fakeHost();
      filter.catch(new TypeError('cannot read properties of undefined'), host);
      expect(error).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(error.mock.calls[0])).toContain(req.id);
    });

    it('does not log expected errors as unhandled', () => {
      const { filter, logger } = newFilter();
      const error = jest.spyOn(logger, 'error');
      filter.catch(new AppError('validation', 'bad'), fakeHost().host);
      expect(error).not.toHaveBeenCalled();
    });

    it.each([
      ['a string', 'boom'],
      ['null', null],
      ['undefined', undefined],
      ['a plain object', { message: 'boom' }],
    ])('answers 500 internal_error when %s is thrown', (_label, thrown) => {
      const { status, errors, req } = answer(thrown);
      expect(status).toBe(500);
      expect(errors.code).toBe('internal_error');
      expect(errors.request_id).toBe(req.id);
    });

    it('other codes carry no request_id', () => {
      const { errors } = answer(new AppError('not_found', 'x'));
      expect(errors).not.toHaveProperty('request_id');
    });
  });

  describe('HttpException', () => {
    it('404 → not_found', () => {
      const { status, errors } = answer(new NotFoundException('Cannot GET /priv/v1/apps/abc/nowhere'));
      expect(status).toBe(404);
      expect(errors.code).toBe('not_found');
    });

    it.each([
      ['401 → 401 unauthorized', () => new UnauthorizedException(), 401, 'unauthorized'],
      ['403 → 401 unauthorized', () => new ForbiddenException(), 401, 'unauthorized'],
      ['429 → 429 rate_limited', () => new HttpException('slow down', HttpStatus.TOO_MANY_REQUESTS), 429, 'rate_limited'],
      ['413 → 413 payload_too_large', () => new PayloadTooLargeException(), 413, 'payload_too_large'],
      ['500 → 500 internal_error', () => new InternalServerErrorException('db password leaked here'), 500, 'internal_error'],
      ['400 → 400 validation', () => new BadRequestException('something off'), 400, 'validation'],
    ])('HttpException %s', (_label, make, expectedStatus, code) => {
      const { status, errors } = answer(make());
      expect(status).toBe(expectedStatus);
      expect(errors.code).toBe(code);
    });

    it('does not reveal the message of a 5xx HttpException', () => {
      const { body } = answer(new InternalServerErrorException('db password leaked here'));
      expect(JSON.stringify(body)).not.toContain('leaked');
    });
  });

  describe('body-parser errors', () => {
    it('malformed JSON (cause entity.parse.failed) → 400 invalid_json', () => {
      const cause = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), { type: 'entity.parse.failed', status: 400 });
      const { status, errors } = answer(new BadRequestException('Unexpected token', { cause }));
      expect(status).toBe(400);
      expect(errors.code).toBe('invalid_json');
    });

    it('a body over the limit (cause entity.too.large) → 413 payload_too_large', () => {
      const cause = Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });
      const { status, errors } = answer(new BadRequestException('request entity too large', { cause }));
      expect(status).toBe(413);
      expect(errors.code).toBe('payload_too_large');
    });

    it('the raw body-parser errors, unwrapped, map the same way', () => {
      const parse = answer(Object.assign(new SyntaxError('Unexpected end of JSON input'), { type: 'entity.parse.failed', status: 400 }));
      expect(parse.status).toBe(400);
      expect(parse.errors.code).toBe('invalid_json');
      const large = answer(Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 }));
      expect(large.status).toBe(413);
      expect(large.errors.code).toBe('payload_too_large');
    });
  });

  describe('unreachable backing services', () => {
    it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND'])('an error with code %s → 503 service_unavailable', (code) => {
      const { status, errors, body } = answer(connectionError(code));
      expect(status).toBe(503);
      expect(errors.code).toBe('service_unavailable');
      expect(JSON.stringify(body)).not.toContain('127.0.0.1');
    });

    it('a driver error wrapped by the ORM (driverError.code 57P01) → 503 service_unavailable', () => {
      const wrapped = Object.assign(new Error('terminating connection due to administrator command'), { driverError: { code: '57P01' } });
      const { status, errors } = answer(wrapped);
      expect(status).toBe(503);
      expect(errors.code).toBe('service_unavailable');
    });

    it.each(['Client has encountered a connection error and is not queryable', 'Client was closed and is not queryable'])(
      'pg refusing a query on a lost connection (%s) → 503 service_unavailable',
      (message) => {
        const { status, errors } = answer(new Error(message));
        expect(status).toBe(503);
        expect(errors.code).toBe('service_unavailable');
      },
    );

    it.each([
      ['a row lock not granted within lock_timeout (55P03)', Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }), /locked by another transaction/],
      ['a deadlock PostgreSQL broke (40P01)', Object.assign(new Error('deadlock detected'), { code: '40P01' }), /deadlock/],
      ['no pooled connection free in time', new Error('timeout exceeded when trying to connect'), /no database connection became free/],
    ])('%s → 503 service_unavailable naming the cause', (_label, error, cause) => {
      const { status, errors } = answer(error);
      expect(status).toBe(503);
      expect(errors.code).toBe('service_unavailable');
      expect(errors.message).toMatch(cause);
    });

    it('a socket error of another realm (raised by Node itself, seen from a VM context) → 503 service_unavailable', () => {
      const foreign = Object.assign(runInNewContext('new Error("write ECONNRESET")') as object, { code: 'ECONNRESET' });
      expect(foreign instanceof Error).toBe(false);
      const { status, errors } = answer(foreign);
      expect(status).toBe(503);
      expect(errors.code).toBe('service_unavailable');
    });

    it.each([
      ['NUL in text (22021), as the driver throws it', () => Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })],
      ['\\u0000 in jsonb (22P05), wrapped by the ORM', () => Object.assign(new Error('unsupported Unicode escape sequence'), { driverError: { code: '22P05' } })],
    ])('text PostgreSQL cannot store: %s → 400 validation, not logged as unhandled', (_label, make) => {
      const { filter, logger } = newFilter();
      const error = jest.spyOn(logger, 'error');
      const { host, recorded } = fakeHost();
      filter.catch(make(), host);
      expect(recorded.status).toBe(400);
      expect(recorded.body).toEqual({ status: 'error', errors: { code: 'validation', message: expect.any(String) } });
      expect(error).not.toHaveBeenCalled();
    });

    it('a query error that is not a connection problem stays internal_error', () => {
      const { status, errors } = answer(Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' }));
      expect(status).toBe(500);
      expect(errors.code).toBe('internal_error');
    });
  });

  it('writes nothing when the headers are already sent', () => {
    const { filter } = newFilter();
    const { host, recorded } = fakeHost({ headersSent: true });
    filter.catch(new Error('late failure'), host);
    expect(recorded.statusCalls).toBe(0);
    expect(recorded.jsonCalls).toBe(0);
  });
});
