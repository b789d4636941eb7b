import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';

/**
 * `npm run lint:prometheus` (scripts/check-prometheus.sh) on a machine without promtool: a user's machine (only Node,
 * PostgreSQL and Redis) is told and passes; CI, where .ci/run installs promtool, fails, so that a check that did not
 * run never reads as passed.
 */
describe('the Prometheus check without promtool', () => {
  // A PATH with dirname only: no promtool (Debian's /bin is /usr/bin, where promtool may be installed).
  const bin = mkdtempSync(join(tmpdir(), 'no-promtool-'));
  symlinkSync('/usr/bin/dirname', join(bin, 'dirname'));
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  const check = (env: Record<string, string>) => spawnSync('/bin/sh', ['scripts/check-prometheus.sh'], { env: { PATH: bin, ...env }, encoding: 'utf8' });

  it('fails under CI=true, saying promtool is missing', () => {
    const run = check({ CI: 'true' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('promtool not found');
  });

  it('passes elsewhere, saying the rules were checked only by the e2e spec', () => {
    const run = check({});
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("checked only by the e2e spec's PromQL parse");
  });
});
