import { HOLDOUT, localDay, tierName, type CompiledRules, type EvaluationResult } from '../../engine/index.js';

export interface BehaviorResults {
  achievements: number;
  customers_achieved: number;
  points: number;
}

/** A completed simulation's results (contract §15). */
export interface SimulationResults {
  points: number;
  achievements: number;
  customers_achieved: number;
  behaviors: Record<string, BehaviorResults>;
  by_day: Array<{ day: string; achievements: number; points: number }>;
  states: Record<string, number>;
  effects: Record<string, number>;
  /** Replayed customers by the tier they reach at the end of the replay (`none`: no tier). */
  tiers: Record<string, number>;
  /** A campaign with an experiment: by group, the customers assigned and what the campaign did for them (§20). */
  groups?: Record<string, GroupResults>;
}

export interface GroupResults {
  customers: number;
  achievements: number;
  points: number;
}

/**
 * Adds up what a replay's evaluations did, event by event: points credited, completions (achievements) and the
 * customers who had one, by behavior and by day of the organization's time zone, and how many events ended in each
 * campaign state, and the tier each replayed customer ends on. Holds one entry per behavior, day and tier, never per customer: the behaviors a customer completed are
 * kept with the customer's replay state (`achieved`), so the tally stays small whatever the number of customers.
 */
export class SimulationTally {
  private points = 0;
  private achievements = 0;
  private customersAchieved = 0;
  private readonly behaviors = new Map<number, { achievements: number; customers: number; points: number }>();
  private readonly days = new Map<string, { achievements: number; points: number }>();
  private readonly states = new Map<string, number>();
  private readonly effects = new Map<string, number>();
  private readonly tiers = new Map<string, number>();
  /** The experiment's groups, holdout first, when the simulated campaign runs one. */
  private readonly groups: Record<string, GroupResults> | null;

  constructor(
    private readonly rules: CompiledRules,
    private readonly timeZone: string,
  ) {
    const experiment = rules.experiments[0]?.rule.experiment;
    this.groups = experiment ? Object.fromEntries([HOLDOUT, ...experiment.variants.map((v) => v.name)].map((name) => [name, { customers: 0, achievements: 0, points: 0 }])) : null;
  }

  /** One event's evaluation; `achieved` holds the behaviors its customer completed before it, and gains this event's. */
  add(result: EvaluationResult, achieved: Set<number>): void {
    this.states.set(result.state, (this.states.get(result.state) ?? 0) + 1);
    for (const effect of result.effects) this.effects.set(effect.kind, (this.effects.get(effect.kind) ?? 0) + 1);
    for (const credit of result.credits) {
      this.points += credit.amount;
      this.behavior(credit.behaviorId).points += credit.amount;
      this.day(credit.at).points += credit.amount;
    }
    for (const { assignment, added } of this.groups ? result.experiments : []) {
      const group = this.groups![assignment.group];
      group.customers += added.customers;
      group.achievements += added.achievements;
      group.points += added.points;
    }
    for (const completion of result.completions) {
      this.achievements += 1;
      this.behavior(completion.behaviorId).achievements += 1;
      this.day(completion.at).achievements += 1;
      if (achieved.has(completion.behaviorId)) continue;
      if (achieved.size === 0) this.customersAchieved += 1;
      achieved.add(completion.behaviorId);
      this.behavior(completion.behaviorId).customers += 1;
    }
  }

  /** A replayed customer's tier once its events are all replayed. */
  reached(tierId: number | null): void {
    const name = tierName(this.rules, tierId) ?? 'none';
    this.tiers.set(name, (this.tiers.get(name) ?? 0) + 1);
  }

  results(): SimulationResults {
    const behaviors: Record<string, BehaviorResults> = {};
    for (const [id, b] of [...this.behaviors].sort(([a], [c]) => a - c)) {
      const name = this.rules.behaviors.get(id)?.rule.name ?? String(id);
      const into = (behaviors[name] ??= { achievements: 0, customers_achieved: 0, points: 0 });
      into.achievements += b.achievements;
      into.customers_achieved += b.customers;
      into.points += b.points;
    }
    return {
      points: this.points,
      achievements: this.achievements,
      customers_achieved: this.customersAchieved,
      behaviors,
      by_day: [...this.days]
        .filter(([, d]) => d.achievements > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([day, d]) => ({ day, achievements: d.achievements, points: d.points })),
      states: Object.fromEntries([...this.states].sort(([a], [b]) => (a < b ? -1 : 1))),
      effects: Object.fromEntries([...this.effects].sort(([a], [b]) => (a < b ? -1 : 1))),
      tiers: Object.fromEntries([...this.tiers].sort(([a], [b]) => (a < b ? -1 : 1))),
      ...(this.groups ? { groups: this.groups } : {}),
    };
  }

  private behavior(id: number) {
    let b = this.behaviors.get(id);
    if (!b) this.behaviors.set(id, (b = { achievements: 0, customers: 0, points: 0 }));
    return b;
  }

  private day(at: number) {
    const key = localDay(at, this.timeZone);
    let d = this.days.get(key);
    if (!d) this.days.set(key, (d = { achievements: 0, points: 0 }));
    return d;
  }
}
