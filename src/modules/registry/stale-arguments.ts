import type { ErrorDetail } from '../../common/errors/app-error.js';
import type { ArgsCheck, ArgsProblems } from '../../common/validation/extension-checks.js';
import { OUTCOME_BOOKKEEPING } from '../../database/entities/behavior.entity.js';
import type { ArgumentsByName } from './extension-registry.js';

/*
 * Stored extension arguments that no longer validate (decision 0027): a reward kind's arguments in a behavior's
 * outcomes, or a criteria operator's value in a goal's criteria, a campaign's or a creative group's targeting, written
 * under an earlier version of the extension's class. Found by running each stored value through the write-time check a
 * write would run it through now; pure, on rows the caller read (StaleArgumentsRepository).
 */

export type StaleObjectType = 'behavior' | 'campaign' | 'creative_group';
export type ArgumentKind = 'reward_kind' | 'criteria_operator';

/** An object of an organization's rules as stored: the columns that may hold extensions' arguments. */
export type StoredRulesObject =
  | { object_type: 'behavior'; object_id: number; organization_id: number; outcome_config: unknown; goal_groups: unknown }
  | { object_type: 'campaign' | 'creative_group'; object_id: number; organization_id: number; targeting: unknown };

/** The write-time checks stored values are run through, by extension name (`extensionChecks()`, or a registry's: checksOf). */
export interface StoredValueChecks {
  rewards: ReadonlyMap<string, ArgsCheck>;
  operators: ReadonlyMap<string, ArgsCheck>;
}

/** One stored value its extension's current class refuses. */
export interface StaleValue {
  object_type: StaleObjectType;
  object_id: number;
  organization_id: number;
  /**
   * The value's dotted path in the object, as a write answers it without the request's wrapper: `outcome_config.0.bonus`
   * (a reward's arguments), `goal_groups.0.goals.1.achievement.criteria.0.value` or `targeting.2.value` (a criterion's value).
   */
  field: string;
  kind: ArgumentKind;
  /** The reward kind's or the operator's name. */
  extension: string;
  /** What the check answers, each under its own dotted field (`outcome_config.0.bonus.points`), every problem found. */
  problems: ErrorDetail[];
  /** Where the value is in the stored columns: the column, then indexes and members (`['outcome_config', 0, 'bonus']`). */
  path: ReadonlyArray<string | number>;
  /** The stored value: the arguments, or the criterion's `value`. */
  value: unknown;
  /** What holds it, as a write sends it: the outcome (`{ bonus: {...} }`, without id and timestamps) or the criterion. */
  holder: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const items = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A registry's checks, as the finder takes them. */
export function checksOf(args: ArgumentsByName): StoredValueChecks {
  const checks = (map: ArgumentsByName['rewards']) => new Map([...map].map(([name, a]) => [name, a.check]));
  return { rewards: checks(args.rewards), operators: checks(args.operators) };
}

/** What a criterion's value is checked with (criteriaProblem's order: a value is required before its class is asked). */
function criterionProblems(check: ArgsCheck, op: string, value: unknown): ArgsProblems {
  return value === undefined ? { value: `is required for ${op}` } : check(value);
}

/** A check's problems under `base` (a reward's arguments: '' is the arguments themselves) as dotted fields. */
function under(base: string, problems: ArgsProblems): ErrorDetail[] {
  return Object.entries(problems).map(([member, message]) => ({ field: member === '' ? base : `${base}.${member}`, message }));
}

/**
 * The stored values among `objects` that their extension's current check refuses: every outcome of a reward kind
 * `checks.rewards` names, and every criterion (goal criteria, targeting) of an operator `checks.operators` names. Built-in
 * kinds and operators are not looked at, nor values of an extension that is not loaded (the explanation says those
 * award nothing and never hold). In the order of the objects, then of the values in each.
 */
export function findStaleValues(objects: Iterable<StoredRulesObject>, checks: StoredValueChecks): StaleValue[] {
  const found: StaleValue[] = [];
  for (const object of objects) {
    const at = { object_type: object.object_type, object_id: object.object_id, organization_id: object.organization_id };
    const criteria = (list: unknown, base: string, path: ReadonlyArray<string | number>) =>
      items(list).forEach((criterion, i) => {
        if (!isObject(criterion) || typeof criterion.op !== 'string') return;
        const check = checks.operators.get(criterion.op);
        if (!check) return;
        const problems = criterionProblems(check, criterion.op, criterion.value);
        if (Object.keys(problems).length === 0) return;
        found.push({
          ...at,
          field: `${base}.${i}.value`,
          kind: 'criteria_operator',
          extension: criterion.op,
          problems: under(`${base}.${i}`, problems),
          path: [...path, i, 'value'],
          value: criterion.value,
          holder: criterion,
        });
      });
    if (object.object_type !== 'behavior') {
      criteria(object.targeting, 'targeting', ['targeting']);
      continue;
    }
    items(object.outcome_config).forEach((outcome, i) => {
      if (!isObject(outcome)) return;
      for (const [kind, args] of Object.entries(outcome)) {
        const check = OUTCOME_BOOKKEEPING.includes(kind) ? undefined : checks.rewards.get(kind);
        if (!check) continue;
        const problems = check(args);
        if (Object.keys(problems).length === 0) continue;
        const field = `outcome_config.${i}.${kind}`;
        found.push({ ...at, field, kind: 'reward_kind', extension: kind, problems: under(field, problems), path: ['outcome_config', i, kind], value: args, holder: { [kind]: args } });
      }
    });
    items(object.goal_groups).forEach((group, g) =>
      items(isObject(group) ? group.goals : undefined).forEach((goal, j) => {
        if (isObject(goal)) criteria(goal.criteria, `goal_groups.${g}.goals.${j}.achievement.criteria`, ['goal_groups', g, 'goals', j, 'criteria']);
      }),
    );
  }
  return found;
}

/** JSON with every object's members in one order: two values are the same JSON when their texts are equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v)) ?? 'undefined';
}

/**
 * The stale values a behavior holds, as a write may send them back (decision 0027): an outcome equal to one of them
 * (its kind and arguments, members in any order), or a criterion equal to one of them (field, op and value), is taken
 * as stored, without its check; any other value is checked as always.
 */
export interface KeptStaleValues {
  outcome(kind: string, args: unknown): boolean;
  criterion(criterion: unknown): boolean;
}

export function keptStaleValues(stale: readonly StaleValue[]): KeptStaleValues | undefined {
  if (stale.length === 0) return undefined;
  const outcomes = new Set(stale.filter((s) => s.kind === 'reward_kind').map((s) => canonicalJson(s.holder)));
  const criteria = new Set(stale.filter((s) => s.kind === 'criteria_operator').map((s) => canonicalJson(s.holder)));
  return {
    outcome: (kind, args) => outcomes.size > 0 && outcomes.has(canonicalJson({ [kind]: args })),
    criterion: (criterion) => criteria.size > 0 && criteria.has(canonicalJson(criterion)),
  };
}

/** Why a stale value stays as stored after an upgrade. */
export type LeftReason = 'no_upgrade' | 'upgrade_failed' | 'still_invalid';

export interface UpgradeOutcome {
  /** The object's columns with every upgraded value in place (only those that changed), or null when none was upgraded. */
  columns: Json | null;
  upgraded: Array<{ value: StaleValue; after: unknown }>;
  /** What stays stale: no upgrade, an upgrade that threw, or one whose result the check refuses (its problems). */
  left: Array<{ value: StaleValue; reason: LeftReason; problems: ErrorDetail[] }>;
}

/** Sets `value` at `path` inside `root` (objects and arrays created by the caller's clone). */
function setAt(root: Json, path: ReadonlyArray<string | number>, value: unknown): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  (node as Record<string | number, unknown>)[path[path.length - 1]] = value;
}

/**
 * Each stale value of one object upgraded by its extension's `upgrade` (a copy of the stored value in, the result checked
 * by the extension's write-time check), and the object's columns holding the results. An upgraded outcome keeps its id
 * and gets `updated_at = now`; a criterion keeps its field and op. Values without an upgrade, whose upgrade threw, or
 * whose upgrade the check refuses, are left as stored.
 */
export function upgradeStaleValues(object: StoredRulesObject, stale: readonly StaleValue[], args: ArgumentsByName, now: string): UpgradeOutcome {
  const columns: Json =
    object.object_type === 'behavior'
      ? { outcome_config: structuredClone(object.outcome_config), goal_groups: structuredClone(object.goal_groups) }
      : { targeting: structuredClone(object.targeting) };
  const outcome: UpgradeOutcome = { columns: null, upgraded: [], left: [] };
  for (const value of stale) {
    const extension = (value.kind === 'reward_kind' ? args.rewards : args.operators).get(value.extension);
    if (!extension?.upgrade) {
      outcome.left.push({ value, reason: 'no_upgrade', problems: value.problems });
      continue;
    }
    let after: unknown;
    try {
      // As it will be stored: JSON (members undefined dropped, a class instance a plain object).
      const upgraded = extension.upgrade(structuredClone(value.value));
      after = upgraded === undefined ? undefined : JSON.parse(JSON.stringify(upgraded));
    } catch (error) {
      outcome.left.push({ value, reason: 'upgrade_failed', problems: [{ field: value.field, message: `upgrade threw: ${error instanceof Error ? error.message : String(error)}` }] });
      continue;
    }
    const base = value.kind === 'reward_kind' ? value.field : value.field.slice(0, -'.value'.length);
    const problems = value.kind === 'reward_kind' ? extension.check(after) : criterionProblems(extension.check, value.extension, after);
    if (Object.keys(problems).length > 0) {
      outcome.left.push({ value, reason: 'still_invalid', problems: under(base, problems) });
      continue;
    }
    setAt(columns, value.path, after);
    if (value.kind === 'reward_kind') setAt(columns, [...value.path.slice(0, -1), 'updated_at'], now);
    outcome.upgraded.push({ value, after });
  }
  if (outcome.upgraded.length > 0) outcome.columns = columns;
  return outcome;
}
