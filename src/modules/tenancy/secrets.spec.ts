import { randomBytes, scryptSync } from 'node:crypto';
import { isApiKeyForm } from '../../common/auth/api-key-verifier.js';
import { hashSecret, newApiKey, newSecret, safeEqual, verifySecret } from './secrets.js';

describe('hashSecret / verifySecret', () => {
  const secret = 'kq3Zx9-correct-horse-battery-staple';
  let stored: string;

  beforeAll(async () => {
    stored = await hashSecret(secret);
  });

  it('verifies the secret it hashed', async () => {
    await expect(verifySecret(secret, stored)).resolves.toBe(true);
  });

  it.each(['', 'kq3Zx9-correct-horse-battery-stapl', 'kq3Zx9-correct-horse-battery-staple ', 'KQ3ZX9-CORRECT-HORSE-BATTERY-STAPLE', 'something else'])(
    'rejects the wrong secret %j',
    async (wrong) => {
      await expect(verifySecret(wrong, stored)).resolves.toBe(false);
    },
  );

  it('stores scrypt$N$r$p$salt$hash without the secret in it', () => {
    expect(stored.startsWith('scrypt$')).toBe(true);
    expect(stored).not.toContain(secret);
    const parts = stored.split('$');
    expect(parts).toHaveLength(6);
    const [, n, r, p, salt, hash] = parts;
    for (const number of [n, r, p]) expect(number).toMatch(/^[1-9]\d*$/);
    for (const encoded of [salt, hash]) expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(salt, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(hash, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('salts: two hashes of the same secret differ, and both verify', async () => {
    const again = await hashSecret(secret);
    expect(again).not.toBe(stored);
    expect(again.split('$')[4]).not.toBe(stored.split('$')[4]);
    await expect(verifySecret(secret, again)).resolves.toBe(true);
  });

  it('round-trips secrets with colons, dollars and non-ASCII characters', async () => {
    const odd = 'a:b$c:dé€🙂';
    const hashed = await hashSecret(odd);
    await expect(verifySecret(odd, hashed)).resolves.toBe(true);
    await expect(verifySecret('a:b$c:de€🙂', hashed)).resolves.toBe(false);
  });

  it('verifies with the parameters recorded in the stored hash, not only the current ones', async () => {
    const salt = randomBytes(16);
    const hash = scryptSync('older-secret', salt, 32, { N: 1024, r: 8, p: 1 });
    const older = ['scrypt', 1024, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$');
    await expect(verifySecret('older-secret', older)).resolves.toBe(true);
    await expect(verifySecret('other-secret', older)).resolves.toBe(false);
  });

  describe('a malformed stored hash is false, never an error and never a match', () => {
    const salt = randomBytes(16).toString('base64url');
    const hash = () => stored.split('$')[5];

    it.each([
      ['empty', () => ''],
      ['no separators', () => 'plain-text-secret'],
      ['another scheme', () => stored.replace(/^scrypt/, 'bcrypt')],
      ['missing hash', () => `scrypt$16384$8$1$${salt}`],
      ['empty salt and hash', () => 'scrypt$16384$8$1$$'],
      ['the secret stored in clear', () => secret],
    ])('%s', async (_label, make) => {
      await expect(verifySecret(secret, make())).resolves.toBe(false);
    });

    it('non-numeric cost parameters', async () => {
      await expect(verifySecret(secret, `scrypt$abc$8$1$${salt}$${hash()}`)).resolves.toBe(false);
    });

    it('invalid cost parameters (N not a power of two)', async () => {
      await expect(verifySecret(secret, `scrypt$1000$8$1$${salt}$${hash()}`)).resolves.toBe(false);
    });

    it('a hash part that decodes to nothing', async () => {
      await expect(verifySecret(secret, `scrypt$16384$8$1$${salt}$!!!!`)).resolves.toBe(false);
      await expect(verifySecret('any guess at all', `scrypt$16384$8$1$${salt}$!!!!`)).resolves.toBe(false);
    });
  });
});

describe('safeEqual', () => {
  it.each([
    ['abc', 'abc'],
    ['', ''],
    ['0123456789abcdef0123456789abcdef', '0123456789abcdef0123456789abcdef'],
    ['é€🙂', 'é€🙂'],
  ])('equal strings %j and %j → true', (a, b) => {
    expect(safeEqual(a, b)).toBe(true);
  });

  it.each([
    ['abc', 'abd'],
    ['abc', 'ab'],
    ['ab', 'abc'],
    ['abc', ''],
    ['abc', 'ABC'],
    ['abc', 'abc '],
  ])('different strings %j and %j → false', (a, b) => {
    expect(safeEqual(a, b)).toBe(false);
  });
});

describe('newApiKey / newSecret', () => {
  it('makes api keys of 32 lower-case hex characters', () => {
    for (let i = 0; i < 20; i++) expect(newApiKey()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('makes secrets of URL-safe characters, long enough to carry 256 bits, with no colon (Basic auth separator)', () => {
    for (let i = 0; i < 20; i++) {
      const secret = newSecret();
      expect(secret).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(secret.length).toBeGreaterThanOrEqual(43);
    }
  });

  it('makes keys of the form isApiKeyForm accepts, which refuses anything else', () => {
    for (let i = 0; i < 20; i++) expect(isApiKeyForm(newApiKey())).toBe(true);
    for (const other of ['', '0123456789abcdef0123456789abcde', '0123456789abcdef0123456789abcdef0', '0123456789ABCDEF0123456789ABCDEF', "' OR 1=1 --", 'a\u0000b']) {
      expect(isApiKeyForm(other)).toBe(false);
    }
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 200 }, () => newApiKey()));
    const secrets = new Set(Array.from({ length: 200 }, () => newSecret()));
    expect(keys.size).toBe(200);
    expect(secrets.size).toBe(200);
  });
});
