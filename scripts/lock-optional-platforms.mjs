// The npm registry reachable here serves the Linux builds of native packages only, so `npm install` leaves the
// other platforms' optional packages (@swc/core-darwin-arm64, ...) out of package-lock.json, and `npm ci` then
// refuses the lock file as out of sync. This records each such missing optional package in the lock file as an
// optional entry without a tarball; npm skips it at install time, as it skips any optional package it cannot fetch.
// Run after changing dependencies: npm install && node scripts/lock-optional-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [location, meta] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    packages[`node_modules/${name}`] = { version: range.replace(/^[\^~=]/, ''), optional: true, ...(meta.dev ? { dev: true } : {}) };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`recorded ${added} optional platform package(s) in package-lock.json\n`);
