import { CORE_OPERATORS, type CriteriaOperators } from './operators.js';
import { CORE_REWARDS, type Rewards } from './rewards.js';

/** What the rules are compiled with: the registered criteria operators and reward kinds, built-ins and extensions'. */
export interface EngineExtensions {
  operators: CriteriaOperators;
  rewards: Rewards;
}

/** The built-ins alone. */
export const CORE_EXTENSIONS: EngineExtensions = { operators: CORE_OPERATORS, rewards: CORE_REWARDS };
