import type { EngineExtensions } from './definitions.js';
import { CORE_OPERATORS } from './operators.js';
import { CORE_REWARDS } from './rewards.js';

/** The built-ins alone. */
export const CORE_EXTENSIONS: EngineExtensions = { operators: CORE_OPERATORS, rewards: CORE_REWARDS };
