import fc from 'fast-check';
import { headerValueArb } from './parts.js';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
  /** Another organization's key and secret. */
  otherKey: string;
  otherSecret: string;
  adminToken: string;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The credentials a route needs, as an Authorization value. */
export function validAuth(kind: 'priv' | 'admin' | 'public', c: Credentials): string | undefined {
  if (kind === 'priv') return `Basic ${b64(`${c.apiKey}:${c.apiSecret}`)}`;
  if (kind === 'admin') return `Bearer ${c.adminToken}`;
  return undefined;
}

/** One base64 character changed, away from the end (where a change can leave the decoded text as it was). */
function alterOne(encoded: string, at: number): string {
  const i = at % Math.max(1, encoded.length - 4);
  return `${encoded.slice(0, i)}${encoded[i] === 'A' ? 'B' : 'A'}${encoded.slice(i + 1)}`;
}

/** Authorization values that must never pass for a /priv route of `apiKey` (absent included). */
export function invalidPrivAuthArb(c: Credentials): fc.Arbitrary<string | undefined> {
  const valid = b64(`${c.apiKey}:${c.apiSecret}`);
  return fc.oneof(
    fc.constantFrom(
      undefined,
      '',
      'Basic',
      'Basic ',
      `Basic ${b64(c.apiKey)}`,
      `Basic ${b64(`${c.apiKey}:`)}`,
      `Basic ${b64(`:${c.apiSecret}`)}`,
      `Basic ${b64(`${c.otherKey}:${c.otherSecret}`)}`,
      `Basic ${b64(`${c.apiKey}:${c.otherSecret}`)}`,
      `Basic ${b64(`${c.apiKey} :${c.apiSecret}`)}`,
      `Basic  ${valid}`,
      `Basic ${valid}!`,
      `Basic ${valid} x`,
      `Basic !!${valid}`,
      `Bearer ${c.adminToken}`,
      `Bearer ${valid}`,
      `Digest ${valid}`,
      valid,
      `Basic ${'A'.repeat(6000)}`,
      `Basic ${b64('é:ü')}`,
      'Basic ====',
    ),
    fc.nat().map((at) => `Basic ${alterOne(valid, at)}`),
    fc.string({ minLength: 1, maxLength: 40 }).map((secret) => `Basic ${b64(`${c.apiKey}:${secret === c.apiSecret ? `${secret}x` : secret}`)}`),
    headerValueArb.filter((v) => !v.trim().toLowerCase().startsWith('basic')),
  );
}

/** Authorization values that must never pass the admin guard (absent included). */
export function invalidAdminAuthArb(c: Credentials): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constantFrom(
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Bearer ${c.adminToken.slice(0, -1)}`,
      `Bearer ${c.adminToken}x`,
      `Bearer  ${c.adminToken}`,
      `Token ${c.adminToken}`,
      c.adminToken,
      `Basic ${b64(`${c.apiKey}:${c.apiSecret}`)}`,
      `Bearer ${'t'.repeat(6000)}`,
    ),
    headerValueArb.filter((v) => !v.includes(c.adminToken)),
  );
}

/** Mostly the right credentials (so the request reaches the handler), sometimes wrong ones, sometimes odd spellings. */
export function anyAuthArb(kind: 'priv' | 'admin' | 'public', c: Credentials): fc.Arbitrary<string | undefined> {
  const wrong = kind === 'admin' ? invalidAdminAuthArb(c) : invalidPrivAuthArb(c);
  const odd = kind === 'admin' ? `bearer ${c.adminToken}` : `basic ${b64(`${c.apiKey}:${c.apiSecret}`)}`;
  return fc.oneof({ weight: 12, arbitrary: fc.constant(validAuth(kind, c)) }, { weight: 2, arbitrary: wrong }, { weight: 1, arbitrary: fc.constant(odd) });
}
