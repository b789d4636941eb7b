import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { criteriaProblem } from '../../../common/validation/criteria.js';
import { declaredMembers, extensionChecks, objectCheck, valueCheck, type ArgsCheck } from '../../../common/validation/extension-checks.js';
import { hasPrototypeKeySegment, PROTOTYPE_KEY_MESSAGE } from '../../../common/validation/reserved-names.js';
import { CORE_REWARDS, type Criterion } from '../../../engine/index.js';
import { BARE_VALUE_ARGS } from '../rewards/core-reward-args.js';
import { CORE_REWARD_KINDS, rewardKindOptions } from '../rewards/core-rewards.js';
import type { BehaviorInput, GoalInput, GroupInput, OutcomeInput } from './behavior-input.js';
import { completionPointsProblem, goalsPerBehaviorProblem, uniqueEventCountProblem } from './behavior-limits.js';
import { intProblem, MAX_INT, nameProblem, REQUIRED, textProblem } from './value-problems.js';

/**
 * Checks one submitted behavior (contract §6) and collects every problem in its `errors` object: a map from a dotted
 * field (`goal_groups.0.goals.1.achievement.unique_attribute`) to a message. Members the view answers as null may be
 * sent as null (not set). `errors` (an object) is ignored, so that behaviors answered with their errors can be fixed
 * and sent again as they are; the other members only the service answers (ids, timestamps) are refused like unknown ones.
 */

export type Problems = Record<string, string>;

export interface CheckedBehavior {
  errors: Problems;
  input: BehaviorInput;
}

/**
 * Values an update may send back as they are stored although their extension's class now refuses them (decision 0027:
 * written under an earlier version of it): an outcome or a criterion equal to one of them is taken without its check.
 */
export interface KeptValues {
  outcome(kind: string, args: unknown): boolean;
  criterion(criterion: unknown): boolean;
}

/** What the organization holds for the outcomes named (see checkReferences). */
export interface KnownReferences {
  offerIds: Set<number>;
  creativeIds: Set<number>;
  /** Lower-cased tier name → the tier's own name. */
  tierNames: Map<string, string>;
}

const MAX_GROUPS = 20;
const MAX_GOALS = 50;
const MAX_OUTCOMES = 20;
const BEHAVIOR_KEYS = ['name', 'tags', 'points', 'data', 'goal_groups', 'outcome_config', 'variant'];
const ACHIEVEMENT_KEYS = ['name', 'internal_event_name', 'event_count', 'type', 'unique_attribute', 'points', 'required', 'criteria', 'tags', 'data'];
const RESPONSE_ONLY = ['id', 'campaign_id', 'outcomes', 'errors', 'created_at', 'updated_at', 'deleted_at'];
const BEHAVIOR_DATA = { ints: ['period', 'max_times_achievable', 'max_times_achievable_per_period', 'max_times_achievable_per_month', 'max_times_achievable_per_year', 'min_time_between_events', 'min_time_between_events_count'], bools: ['use_same_period', 'consecutive', 'eligible_spend'] };
const GOAL_DATA = { ints: ['min_time_between_events', 'min_time_between_events_count'], bools: ['consecutive'] };
const TAGS = /^[^|]+(\|[^|]+)*$/;

type Json = Record<string, unknown>;

const at = (base: string, key: string | number): string => (base ? `${base}.${key}` : String(key));

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Checker {
  readonly errors: Problems = {};

  constructor(readonly kept?: KeptValues) {}

  fail(field: string, message: string): void {
    if (!(field in this.errors)) this.errors[field] = message;
  }

  /** Members outside `allowed` are errors of their own; `answered` objects may carry the `errors` the service answered. */
  members(base: string, value: Json, allowed: readonly string[], answered = false): void {
    for (const key of Object.keys(value)) {
      if (allowed.includes(key) || (answered && key === 'errors' && isObject(value.errors))) continue;
      this.fail(at(base, key), RESPONSE_ONLY.includes(key) ? 'is answered by the service and cannot be written' : 'is not a known attribute');
    }
  }

  present(field: string, value: unknown): boolean {
    if (value === undefined || value === null) this.fail(field, REQUIRED);
    return value !== undefined && value !== null;
  }

  /** `value` when `problem` finds nothing wrong with it; else the problem recorded. Undefined (absent) is not checked. */
  private valid<T>(field: string, value: unknown, problem: (value: unknown) => string | null): T | undefined {
    if (value === undefined) return undefined;
    const found = problem(value);
    if (found === null) return value as T;
    this.fail(field, found);
    return undefined;
  }

  int(field: string, value: unknown, min: number, max = MAX_INT): number | undefined {
    return this.valid(field, value, (v) => intProblem(v, min, max));
  }

  bool(field: string, value: unknown): boolean | undefined {
    if (value === undefined || typeof value === 'boolean') return value;
    this.fail(field, 'must be true or false');
    return undefined;
  }

  text(field: string, value: unknown, max = 255): string | undefined {
    return this.valid(field, value, (v) => textProblem(v, max));
  }

  /** A member the view answers as null when it is not set. */
  nullableText(field: string, value: unknown): string | null {
    return value === null ? null : (this.text(field, value) ?? null);
  }

  /** A name of a behavior, goal, event or attribute: text that is not a prototype key (contract §18). */
  name(field: string, value: unknown): string | undefined {
    return this.valid(field, value, nameProblem);
  }

  nullableName(field: string, value: unknown): string | null {
    return value === null ? null : (this.name(field, value) ?? null);
  }

  /** A data object: the known members checked (null means not set), the others kept as sent. */
  data(field: string, value: unknown, known: { ints: string[]; bools: string[] }): Json {
    if (!isObject(value)) {
      this.fail(field, 'must be an object');
      return {};
    }
    for (const key of known.ints) if (value[key] !== null) this.int(at(field, key), value[key], 1);
    for (const key of known.bools) if (value[key] !== null) this.bool(at(field, key), value[key]);
    // goals_csv_data is generated on every read: a behavior sent back as it was answered does not store it.
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'goals_csv_data'));
  }

  tags(field: string, value: unknown): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value === 'string' && value.length <= 1000 && TAGS.test(value)) return value;
    this.fail(field, 'must be a string of tags joined with | such as explorer|visitor (no empty tag, at most 1000 characters)');
    return null;
  }

  criteria(field: string, value: unknown): Criterion[] {
    if (value === undefined) return [];
    // Criteria kept as stored (an update sending back a stale one) are not checked again: the others are, numbered as sent.
    const kept = this.kept;
    const checked = kept && Array.isArray(value) ? value.flatMap((criterion, i) => (kept.criterion(criterion) ? [] : [i])) : null;
    const problem = checked && checked.length < (value as unknown[]).length ? renumber(criteriaProblem(checked.map((i) => (value as unknown[])[i]), 'goal'), checked) : criteriaProblem(value, 'goal');
    if (problem === null) {
      const criteria = value as Criterion[];
      criteria.forEach((criterion, i) => {
        if (hasPrototypeKeySegment(criterion.field)) this.fail(`${field}.${i}.field`, `names ${criterion.field}: an attribute name ${PROTOTYPE_KEY_MESSAGE}`);
      });
      return criteria;
    }
    // "[1].op must be ..." names criterion 1's member (or "[1].value.lat", an operator's object value's): answer it
    // under its own dotted field.
    const match = /^\[(\d+)\]((?:\.\w+)*) (.*)$/.exec(problem);
    if (match) this.fail(`${field}.${match[1]}${match[2]}`, match[3]);
    else this.fail(field, problem);
    return [];
  }
}

/** A problem of criteriaProblem on some of the criteria (`indexes`: their places in the list sent), numbered as sent. */
function renumber(problem: string | null, indexes: number[]): string | null {
  const match = problem === null ? null : /^\[(\d+)\](.*)$/s.exec(problem);
  return match ? `[${indexes[Number(match[1])]}]${match[2]}` : problem;
}

function checkAchievement(c: Checker, field: string, value: unknown): GoalInput | null {
  if (!c.present(field, value)) return null;
  if (!isObject(value)) {
    c.fail(field, 'must be an object {name, internal_event_name, event_count, ...}');
    return null;
  }
  c.members(field, value, ACHIEVEMENT_KEYS, true);
  const f = (key: string) => at(field, key);
  const name = c.present(f('name'), value.name) ? c.name(f('name'), value.name) : undefined;
  let type: 'count' | 'unique' = 'count';
  if (value.type === 'unique' || value.type === 'count') type = value.type;
  else if (value.type !== undefined) c.fail(f('type'), 'must be count or unique');
  if (type === 'unique' && value.unique_attribute == null) c.fail(f('unique_attribute'), 'is required when type is unique');
  const eventCount = c.int(f('event_count'), value.event_count, 1) ?? 1;
  const uniqueProblem = type === 'unique' ? uniqueEventCountProblem(eventCount) : null;
  if (uniqueProblem) c.fail(f('event_count'), uniqueProblem);
  return {
    name: name ?? '',
    internal_event_name: c.nullableName(f('internal_event_name'), value.internal_event_name),
    event_count: eventCount,
    type,
    unique_attribute: c.nullableName(f('unique_attribute'), value.unique_attribute),
    points: c.int(f('points'), value.points, 0) ?? 0,
    required: c.bool(f('required'), value.required) ?? false,
    criteria: c.criteria(f('criteria'), value.criteria),
    tags: c.tags(f('tags'), value.tags),
    data: value.data === undefined ? {} : c.data(f('data'), value.data, GOAL_DATA),
  };
}

function checkGroup(c: Checker, field: string, value: unknown): GroupInput {
  if (!isObject(value)) {
    c.fail(field, 'must be an object {goal_count, goals}');
    return { goal_count: 0, goals: [] };
  }
  c.members(field, value, ['goal_count', 'goals']);
  const goals: GoalInput[] = [];
  const list = value.goals;
  if (!c.present(at(field, 'goals'), list)) return { goal_count: 0, goals };
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_GOALS) {
    c.fail(at(field, 'goals'), `must be an array of 1 to ${MAX_GOALS} goals`);
    return { goal_count: 0, goals };
  }
  list.forEach((goal, i) => {
    const goalField = at(at(field, 'goals'), i);
    if (!isObject(goal)) return c.fail(goalField, 'must be an object {achievement}');
    c.members(goalField, goal, ['achievement']);
    const achievement = checkAchievement(c, at(goalField, 'achievement'), goal.achievement);
    if (achievement) goals.push(achievement);
  });
  const goalCount = c.int(at(field, 'goal_count'), value.goal_count, 1, list.length);
  return { goal_count: goalCount ?? list.length, goals };
}

function checkGroups(c: Checker, value: unknown): GroupInput[] {
  if (!c.present('goal_groups', value)) return [];
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_GROUPS) {
    c.fail('goal_groups', `must be an array of 1 to ${MAX_GROUPS} goal groups`);
    return [];
  }
  const groups = value.map((group, i) => checkGroup(c, at('goal_groups', i), group));
  const goals = value.reduce((sum: number, group: unknown) => sum + (isObject(group) && Array.isArray(group.goals) ? group.goals.length : 0), 0);
  const tooMany = goalsPerBehaviorProblem(goals);
  if (tooMany) c.fail('goal_groups', tooMany);
  // Goal names are unique within the behavior: an update keeps a goal's id (and customer progress) by its name.
  const seen = new Set<string>();
  value.forEach((group: unknown, g) => {
    const goals = isObject(group) && Array.isArray(group.goals) ? group.goals : [];
    goals.forEach((goal: unknown, i) => {
      const name = isObject(goal) && isObject(goal.achievement) ? goal.achievement.name : undefined;
      if (typeof name !== 'string') return;
      if (seen.has(name)) c.fail(`goal_groups.${g}.goals.${i}.achievement.name`, 'is used by another goal of this behavior');
      seen.add(name);
    });
  });
  return groups;
}

/**
 * How one reward kind's arguments are checked when a behavior is written: problems recorded on `c` under `field`, and
 * the arguments as stored answered (null or undefined when they are wrong).
 */
type OutcomeCheck = (c: Checker, field: string, args: unknown) => unknown;

/** Problems of a class's check recorded under `field`: `member` is a dotted path below it ('' for the field itself). */
function record(c: Checker, field: string, problems: Array<[string, string]>): void {
  for (const [member, message] of problems) c.fail(member === '' ? field : at(field, member), message);
}

/**
 * A built-in kind's check: its args class's, as an extension's is, with the messages behaviors have always answered. An
 * object of the class's members (a value that is not one: `must be an object {id}`; other members refused, as the
 * behavior's are) is stored with those members only, their defaults filled in (an event's `by`); a bare value (points)
 * is checked as the class's `value`, and stored as it is.
 */
function coreCheck(args: Type): OutcomeCheck {
  if (BARE_VALUE_ARGS.has(args)) {
    const check = valueCheck(args);
    return (c, f, value) => {
      const problems = Object.entries(check(value)).map(([member, message]): [string, string] => [member.replace(/^value\.?/, ''), message]);
      record(c, f, problems);
      return problems.length ? null : value;
    };
  }
  const members = declaredMembers(args);
  const check = objectCheck(args);
  return (c, f, value) => {
    if (!isObject(value)) {
      c.fail(f, `must be an object {${members.join(', ')}}`);
      return null;
    }
    c.members(f, value, members);
    const own = Object.fromEntries(members.filter((m) => Object.hasOwn(value, m)).map((m) => [m, value[m]]));
    const problems = Object.entries(check(own));
    record(c, f, problems);
    if (problems.length) return null;
    const stored = plainToInstance(args, own) as Json;
    return Object.fromEntries(members.filter((m) => stored[m] !== undefined).map((m) => [m, stored[m]]));
  };
}

/** The built-in kinds' checks (their messages are part of the API), from their @RewardKind's args classes, in the engine's order. */
const CORE_OUTCOME_CHECKS = ((): Map<string, OutcomeCheck> => {
  const argsOf = new Map(CORE_REWARD_KINDS.map((handler) => rewardKindOptions(handler)).map(({ name, args }) => [name, args]));
  return new Map(
    [...CORE_REWARDS.keys()].map((kind): [string, OutcomeCheck] => {
      const args = argsOf.get(kind);
      if (!args) throw new Error(`the built-in reward kind "${kind}" has no args class (rewards/core-rewards.ts)`);
      return [kind, coreCheck(args)];
    }),
  );
})();

/** An extension's check (its args class) as an outcome check: each problem under its member; arguments kept as stored pass. */
function extensionCheck(kind: string, check: ArgsCheck): OutcomeCheck {
  return (c, f, value) => {
    if (c.kept?.outcome(kind, value)) return value;
    const problems = Object.entries(check(value));
    record(c, f, problems);
    return problems.length ? null : value;
  };
}

/** Every reward kind's check, the built-ins' first, then the registered extensions'. */
function outcomeChecks(): Map<string, OutcomeCheck> {
  return new Map([...CORE_OUTCOME_CHECKS, ...[...extensionChecks().rewards].map(([kind, check]): [string, OutcomeCheck] => [kind, extensionCheck(kind, check)])]);
}

function checkOutcome(c: Checker, field: string, value: unknown, checks: Map<string, OutcomeCheck>): OutcomeInput | null {
  const allowed = [...checks.keys()];
  if (!isObject(value)) {
    c.fail(field, `must be an object holding one of ${allowed.join(', ')}`);
    return null;
  }
  c.members(field, value, allowed);
  const kinds = allowed.filter((kind) => Object.hasOwn(value, kind));
  if (kinds.length !== 1) {
    c.fail(field, kinds.length ? `holds ${kinds.join(' and ')}: one outcome per object` : `must hold one of ${allowed.join(', ')}`);
    return null;
  }
  const kind = kinds[0];
  const args = checks.get(kind)!(c, at(field, kind), value[kind]);
  // The stored form of every outcome: its kind's member holding its arguments.
  return args === null || args === undefined ? null : ({ [kind]: args } as unknown as OutcomeInput);
}

function checkOutcomes(c: Checker, value: unknown): Array<OutcomeInput | null> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_OUTCOMES) {
    c.fail('outcome_config', `must be an array of at most ${MAX_OUTCOMES} outcomes`);
    return [];
  }
  const checks = outcomeChecks();
  return value.map((outcome, i) => checkOutcome(c, at('outcome_config', i), outcome, checks));
}

/**
 * The shape of one behavior: every problem found, and the behavior with its defaults. `kept`: on an update, the stale
 * values the behavior holds, which may be sent back unchanged.
 */
export function checkBehavior(raw: unknown, kept?: KeptValues): CheckedBehavior {
  const c = new Checker(kept);
  const value: Json = isObject(raw) ? raw : {};
  c.members('', value, BEHAVIOR_KEYS, true);
  const name = c.present('name', value.name) ? c.name('name', value.name) : undefined;
  const data = c.present('data', value.data) ? c.data('data', value.data, BEHAVIOR_DATA) : {};
  const input: BehaviorInput = {
    name: name ?? '',
    tags: c.tags('tags', value.tags),
    points: c.int('points', value.points, 0) ?? 0,
    data,
    goal_groups: checkGroups(c, value.goal_groups),
    outcome_config: checkOutcomes(c, value.outcome_config),
    variant: value.variant === undefined ? null : c.nullableName('variant', value.variant),
  };
  const pointsProblem = completionPointsProblem(input);
  if (pointsProblem) c.fail('points', pointsProblem);
  return { errors: c.errors, input };
}

/** Offers, creatives and tiers the outcomes of these behaviors name, to look up in one go. */
export function referencesNamed(behaviors: BehaviorInput[]): { offerIds: number[]; creativeIds: number[]; tierNames: string[] } {
  const outcomes = behaviors.flatMap((b) => b.outcome_config);
  return {
    offerIds: [...new Set(outcomes.flatMap((o) => (o && 'deal' in o ? [o.deal.id] : [])))],
    creativeIds: [...new Set(outcomes.flatMap((o) => (o && 'ad_unit' in o ? [o.ad_unit.id] : [])))],
    tierNames: [...new Set(outcomes.flatMap((o) => (o && 'tier' in o ? [o.tier.name.toLowerCase()] : [])))],
  };
}

/** A behavior's variant must be one of its campaign's experiment (§20). */
export function checkVariant(checked: CheckedBehavior, variants: string[] | null): void {
  const variant = checked.input.variant;
  if (variant === null || variants?.includes(variant)) return;
  checked.errors.variant = variants ? `is not a variant of the campaign's experiment (${variants.join(', ')})` : 'names a variant, but the campaign runs no experiment';
}

/** Outcomes must name live objects of the organization (creatives: of the behavior's campaign). Tier names take the tier's own spelling. */
export function checkReferences(checked: CheckedBehavior, known: KnownReferences): void {
  checked.input.outcome_config.forEach((outcome, i) => {
    const field = `outcome_config.${i}`;
    if (outcome && 'deal' in outcome && !known.offerIds.has(outcome.deal.id)) {
      checked.errors[`${field}.deal.id`] = 'is not an offer of this organization';
    }
    if (outcome && 'ad_unit' in outcome && !known.creativeIds.has(outcome.ad_unit.id)) {
      checked.errors[`${field}.ad_unit.id`] = 'is not a creative of this campaign';
    }
    if (outcome && 'tier' in outcome) {
      const name = known.tierNames.get(outcome.tier.name.toLowerCase());
      if (name === undefined) checked.errors[`${field}.tier.name`] = 'is not a tier of this organization';
      else outcome.tier.name = name;
    }
  });
}
