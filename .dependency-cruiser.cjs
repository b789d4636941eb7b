// The house's layering (docs/architecture.md), checked by `npm run lint:deps` in `npm test`: modules on floors, each
// importing only modules on its floor or below, and another module only through its face (its index.ts); common/
// imports no module; no file circles. src/engine's purity is eslint's (eslint.config.js).

/** The modules of src/modules, by floor, lowest first. A module may import those of its floor and the floors below. */
const FLOORS = [
  ['audit', 'health'],
  ['tenancy'],
  ['registry', 'metrics'],
  ['campaigns'],
  ['creatives', 'webhooks', 'analytics'],
  ['customers-state', 'experiments'],
  ['evaluation'],
  ['events', 'reward-effects', 'extensions', 'points'],
  ['domain-actions', 'simulations', 'data-rights', 'settings'],
];

const any = (names) => `^src/modules/(${names.join('|')})/`;

const floorRules = FLOORS.slice(0, -1).map((floor, index) => ({
  name: `floor-${index}`,
  comment: `${floor.join(', ')} (floor ${index}) may not import a module of a higher floor: move the shared piece down, or the caller up`,
  severity: 'error',
  from: { path: any(floor), pathNot: '\\.spec\\.ts$' },
  to: { path: any(FLOORS.slice(index + 1).flat()) },
}));

const known = FLOORS.flat();

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle between files: move the shared types or functions down into a file both import',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'module-face',
      comment: "Another module's files are reached through its face (src/modules/<module>/index.ts) only",
      severity: 'error',
      from: { path: '^src/(?!modules/)|^src/modules/([^/]+)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'common-imports-no-module',
      comment: 'src/common is below every module: it imports none (a module provides what common asks for, as tenancy provides ApiKeyVerifier)',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'module-on-a-floor',
      comment: 'Every module of src/modules has a floor in .dependency-cruiser.cjs (FLOORS) and docs/architecture.md',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: any(known) },
      to: {},
    },
    ...floorRules,
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    includeOnly: '^src/',
  },
};
