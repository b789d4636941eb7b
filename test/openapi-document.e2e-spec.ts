import type { INestApplication } from '@nestjs/common';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { createTestApp } from './support/app.js';

const CHECKED_IN = 'docs/openapi.json';

/** The width within which an object or array of the checked-in document is written on one line. */
const WIDTH = 120;

/**
 * `value` as JSON indented by two, each object or array that fits within WIDTH on one line (a schema reference, a
 * parameter's schema, an example's value): a fifth smaller than indented throughout, and a change still shows as the
 * lines it changes.
 */
function formatted(value: unknown, column = 0, prefix = ''): string {
  const line = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || column + prefix.length + line.length <= WIDTH) return prefix + line;
  const inner = ' '.repeat(column + 2);
  const members = Array.isArray(value)
    ? value.map((item) => inner + formatted(item, column + 2))
    : Object.entries(value).map(([name, item]) => inner + formatted(item, column + 2, `${JSON.stringify(name)}: `));
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${prefix}${open}\n${members.join(',\n')}\n${' '.repeat(column)}${close}`;
}

/**
 * docs/openapi.json is the document the service serves at /docs-json, checked in: `npm run lint:openapi` lints it and
 * the typed client (clients/typescript) is generated from it. `npm run openapi:update` rewrites both from the served one.
 */
describe('The checked-in OpenAPI document', () => {
  let app: INestApplication;
  let served: string;

  beforeAll(async () => {
    app = await createTestApp();
    const res = await request(app.getHttpServer()).get('/docs-json').expect(200);
    served = formatted(res.body) + '\n';
    if (process.env.UPDATE_OPENAPI) writeFileSync(CHECKED_IN, served);
  });
  afterAll(() => app.close());

  it('is the document the service serves (after a change to the API: npm run openapi:update)', () => {
    expect(readFileSync(CHECKED_IN, 'utf8')).toBe(served);
  });

  it('is the one the typed client was generated from (npm run client:generate)', () => {
    const check = spawnSync('npm', ['run', '-s', 'client:generate', '--', '--check'], { encoding: 'utf8' });
    expect({ status: check.status, output: check.stderr.trim() }).toEqual({ status: 0, output: expect.not.stringContaining('not up-to-date') });
  });
});
