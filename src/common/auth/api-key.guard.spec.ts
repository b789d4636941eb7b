import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyGuard, basicCredentials } from './api-key.guard.js';
import { AppError } from '../errors/app-error.js';
import type { Tenant } from '../http/request-context.js';
import type { ApiKeyService } from '../../modules/tenancy/api-key.service.js';

const basic = (userPass: string, scheme = 'Basic') => `${scheme} ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('basicCredentials', () => {
  it('reads api_key and api_secret from a valid header', () => {
    expect(basicCredentials(basic('3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b:kq3Zx9-secret_value'))).toEqual({
      key: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b',
      secret: 'kq3Zx9-secret_value',
    });
  });

  it('accepts the scheme name in any case', () => {
    expect(basicCredentials(basic('key:secret', 'basic'))).toEqual({ key: 'key', secret: 'secret' });
    expect(basicCredentials(basic('key:secret', 'BASIC'))).toEqual({ key: 'key', secret: 'secret' });
  });

  it('splits at the first colon, so a secret may contain colons', () => {
    expect(basicCredentials(basic('key:a:b::c:'))).toEqual({ key: 'key', secret: 'a:b::c:' });
  });

  it('keeps an empty secret or key as empty strings (the guard refuses them)', () => {
    expect(basicCredentials(basic('key:'))).toEqual({ key: 'key', secret: '' });
    expect(basicCredentials(basic(':secret'))).toEqual({ key: '', secret: 'secret' });
  });

  it('decodes UTF-8 credentials', () => {
    expect(basicCredentials(basic('clé:sécret€'))).toEqual({ key: 'clé', secret: 'sécret€' });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['scheme only', 'Basic'],
    ['scheme and space only', 'Basic '],
  ])('returns null when the header is %s', (_label, header) => {
    expect(basicCredentials(header)).toBeNull();
  });

  it.each([
    ['Bearer', basic('key:secret', 'Bearer')],
    ['Digest', basic('key:secret', 'Digest')],
    ['no scheme', Buffer.from('key:secret').toString('base64')],
    ['scheme glued to the value', `Basic${Buffer.from('key:secret').toString('base64')}`],
  ])('returns null for another or no scheme: %s', (_label, header) => {
    expect(basicCredentials(header)).toBeNull();
  });

  it('returns null when the decoded value has no colon', () => {
    expect(basicCredentials(basic('keyonly'))).toBeNull();
    expect(basicCredentials(basic(''))).toBeNull();
  });

  it.each(['Basic a2V5$c2VjcmV0', 'Basic a2V5OnNlY3JldA==!', 'Basic a2V5 OnNlY3JldA==', 'Basic ***', 'Basic a2V5OnNlY3JldA==\n'])(
    'returns null for characters outside base64: %j',
    (header) => {
      expect(basicCredentials(header)).toBeNull();
    },
  );
});

describe('ApiKeyGuard', () => {
  const tenant: Tenant = {
    organizationId: 1,
    applicationId: 2,
    apiKeyId: 3,
    apiKey: 'abc123',
    multiOrgEnabled: false,
    timeZone: 'UTC',
    rootDivisionId: 4,
  };

  function setup(params: Record<string, string>, authorization: string | undefined, verified: Tenant | null) {
    const verify = jest.fn(async (_key: string, _secret: string): Promise<Tenant | null> => verified);
    const guard = new ApiKeyGuard({ verify } as unknown as ApiKeyService);
    const req = { params, header: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : undefined) } as unknown as Request;
    const context = { switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
    return { guard, verify, req, context };
  }

  async function refusal(promise: Promise<boolean>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    }
    throw new Error('the guard let the request in');
  }

  it('lets a matching key with a verified secret in and attaches the tenant', async () => {
    const { guard, verify, req, context } = setup({ api_key: 'abc123' }, basic('abc123:s3cret'), tenant);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(verify).toHaveBeenCalledWith('abc123', 's3cret');
    expect(req.tenant).toEqual(tenant);
  });

  it.each([
    ['no Authorization header', { api_key: 'abc123' }, undefined],
    ['a Bearer header', { api_key: 'abc123' }, basic('abc123:s3cret', 'Bearer')],
    ['a path key different from the Basic user', { api_key: 'abc123' }, basic('other:s3cret')],
    ['an empty secret', { api_key: 'abc123' }, basic('abc123:')],
    ['no :api_key path segment', {}, basic('abc123:s3cret')],
  ])('answers unauthorized without checking the secret for %s', async (_label, params, header) => {
    const { guard, verify, req, context } = setup(params, header, tenant);
    const error = await refusal(guard.canActivate(context));
    expect(error.code).toBe('unauthorized');
    expect(error.status).toBe(401);
    expect(verify).not.toHaveBeenCalled();
    expect(req.tenant).toBeUndefined();
  });

  it('answers the same unauthorized when the key service refuses (unknown, inactive key or wrong secret)', async () => {
    const refused = setup({ api_key: 'abc123' }, basic('abc123:wrong'), null);
    const refusedError = await refusal(refused.guard.canActivate(refused.context));
    const missing = setup({ api_key: 'abc123' }, undefined, tenant);
    const missingError = await refusal(missing.guard.canActivate(missing.context));
    expect(refused.verify).toHaveBeenCalledWith('abc123', 'wrong');
    expect(refusedError.code).toBe('unauthorized');
    expect(refusedError.message).toBe(missingError.message);
    expect(refused.req.tenant).toBeUndefined();
  });
});
