import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';

/** Every migration, in order. Listed here (not globbed) so the same list runs from dist, tests and the CLI. */
export const migrations = [InitialSchema1763800000000];
