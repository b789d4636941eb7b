/**
 * Contract §18: what one organization may write or send, so that the others' answers stay fast. Each limit is a
 * setting of the deployment (LIMIT_* in the environment, docs/limits.md); the defaults are the contract's.
 *
 * The configuration module sets them once per process (`useLimits`); DTO validators, which class-validator builds
 * without Nest's injector, read them through `limits()`.
 */
export interface Limits {
  /** Behaviors of one campaign. */
  behaviorsPerCampaign: number;
  /** Goals of one behavior, over all its groups. */
  goalsPerBehavior: number;
  /** Goals of the live campaigns of one organization. */
  liveGoalsPerOrganization: number;
  /** A unique goal's `event_count`: the distinct values a customer's progress may hold for it. */
  uniqueGoalEventCount: number;
  /** Characters of one string in event attributes or context. */
  attributeLength: number;
  /** Event instances of one V1 request. */
  v1Instances: number;
  /** Points one completion may award: the behavior's, its goals' and its outcomes' together. */
  completionPoints: number;
  /** Years a simulation's range may span. */
  simulationYears: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  behaviorsPerCampaign: 200,
  goalsPerBehavior: 100,
  liveGoalsPerOrganization: 5_000,
  uniqueGoalEventCount: 10_000,
  attributeLength: 1_024,
  v1Instances: 100,
  completionPoints: 2_147_483_647,
  simulationYears: 3,
});

/** Each limit's environment variable, and the greatest value it may be set to. */
export const LIMIT_SETTINGS: Record<keyof Limits, { env: string; max: number }> = {
  behaviorsPerCampaign: { env: 'LIMIT_BEHAVIORS_PER_CAMPAIGN', max: 10_000 },
  goalsPerBehavior: { env: 'LIMIT_GOALS_PER_BEHAVIOR', max: 10_000 },
  liveGoalsPerOrganization: { env: 'LIMIT_LIVE_GOALS_PER_ORGANIZATION', max: 1_000_000 },
  uniqueGoalEventCount: { env: 'LIMIT_UNIQUE_GOAL_EVENT_COUNT', max: 1_000_000 },
  attributeLength: { env: 'LIMIT_ATTRIBUTE_LENGTH', max: 1_000_000 },
  v1Instances: { env: 'LIMIT_V1_INSTANCES', max: 10_000 },
  completionPoints: { env: 'LIMIT_COMPLETION_POINTS', max: 2_147_483_647 },
  simulationYears: { env: 'LIMIT_SIMULATION_YEARS', max: 100 },
};

let current: Readonly<Limits> = DEFAULT_LIMITS;

/** This process's limits. */
export function limits(): Readonly<Limits> {
  return current;
}

/** Sets this process's limits (the configuration module, and tests that configure an application). */
export function useLimits(next: Limits): void {
  current = Object.freeze({ ...next });
}
