/**
 * Bulkheads around extensions' code (issue #45, decision 0025): a criteria operator or reward kind of an extension that
 * throws fails the campaign whose rule or reward called it, for that evaluation, and nothing else. The evaluation is
 * run again from its input with that campaign skipped: the engine is pure, so the second run is the evaluation without
 * the campaign, and nothing of it (credits, tags, tier moves, budget spend, progress, raised events) survives.
 */
import type { OperatorDefinition, Reward } from './definitions.js';
import type { ExtensionFailureRecord, ExtensionKind } from './result.js';

/** What an extension's throw became: its definition, the call and the rule it was made for, and the campaign it fails. */
export class ExtensionFailure extends Error {
  /** The campaign whose rule or reward called the extension; set where the campaign's evaluation is left. */
  campaignId: number | null = null;
  /** The submitted instance being evaluated (raised events share their origin's). */
  eventIndex = 0;

  constructor(
    readonly kind: ExtensionKind,
    /** The operator's or reward kind's name. */
    readonly extension: string,
    /** The extension (module) that defined it. */
    readonly source: string,
    readonly call: string,
    /** The rule it was called for: `goal 12`, `campaign 4 targeting`, `behavior 7 outcome 2`. */
    readonly at: string,
    /** What was thrown. */
    readonly error: unknown,
  ) {
    super(`${kind === 'criteria_operator' ? 'criteria operator' : 'reward kind'} "${extension}" of ${source} threw at ${at}: ${firstLine(error)}`);
    this.name = 'ExtensionFailure';
  }
}

/** The campaigns an evaluation skips, each with the failure that made it skip them. */
export type Skipped = ReadonlyMap<number, ExtensionFailure>;

export const NONE_SKIPPED: Skipped = new Map();

function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n', 1)[0].slice(0, 300);
}

/** What an extension's call threw, as the failure it is (one thrown by an inner guard stays as it is). */
const failure = (kind: ExtensionKind, definition: { name: string; source: string }, call: string, at: string, error: unknown): ExtensionFailure =>
  error instanceof ExtensionFailure ? error : new ExtensionFailure(kind, definition.name, definition.source, call, at, error);

const guarded = <R>(kind: ExtensionKind, definition: { name: string; source: string }, call: string, at: string, work: () => R): R => {
  try {
    return work();
  } catch (error) {
    throw failure(kind, definition, call, at, error);
  }
};

/**
 * The operator as a rule at `at` calls it: a built-in as it is, an extension's with its throw made an ExtensionFailure
 * (no closure per call: it is on every criterion's path).
 */
export function guardOperator(operator: OperatorDefinition, at: string): OperatorDefinition {
  if (operator.source === 'core') return operator;
  const test = (actual: unknown, expected: unknown): boolean => {
    try {
      return operator.test(actual, expected);
    } catch (error) {
      throw failure('criteria_operator', operator, 'test', at, error);
    }
  };
  return { ...operator, test };
}

/**
 * The reward kind as an outcome at `at` uses it. An extension's calls are guarded; what the compilation asks of it
 * (`raises`, `creatives`) is asked now, and a throw there makes a reward whose every call fails with it: compiling
 * rules never fails on an extension.
 */
export function guardReward(reward: Reward, args: unknown, at: string): { reward: Reward; raises: string[]; creatives: number[] } {
  if (reward.source === 'core') return { reward, raises: reward.raises?.(args) ?? [], creatives: reward.creatives?.(args) ?? [] };
  try {
    const raises = guarded('reward_kind', reward, 'raises', at, () => reward.raises?.(args) ?? []);
    const creatives = guarded('reward_kind', reward, 'creatives', at, () => reward.creatives?.(args) ?? []);
    const { points } = reward;
    return {
      reward: {
        ...reward,
        raises: () => raises,
        apply: (ctx, a) => {
          try {
            reward.apply(ctx, a);
          } catch (error) {
            throw failure('reward_kind', reward, 'apply', at, error);
          }
        },
        ...(points
          ? {
              points: (a, rules) => {
                try {
                  return points(a, rules);
                } catch (error) {
                  throw failure('reward_kind', reward, 'points', at, error);
                }
              },
            }
          : {}),
      },
      raises,
      creatives,
    };
  } catch (failure) {
    const fail = (): never => {
      throw failure;
    };
    return { reward: { ...reward, apply: fail, points: fail }, raises: [], creatives: [] };
  }
}

/** Stamps an extension's failure with the campaign being left, unless an inner campaign (a raised event's) did. */
export function stampFailure(error: unknown, campaignId: number, eventIndex: number): unknown {
  if (error instanceof ExtensionFailure && error.campaignId === null) {
    error.campaignId = campaignId;
    error.eventIndex = eventIndex;
  }
  return error;
}

/**
 * Runs an evaluation, and again without each campaign an extension's failure fails: at most one more run per failing
 * campaign. Any other error, or a failure no campaign owns, is rethrown as it is.
 */
export function withBulkheads<R>(run: (skipped: Skipped) => R): R {
  const skipped = new Map<number, ExtensionFailure>();
  for (;;) {
    try {
      return run(skipped);
    } catch (error) {
      skip(error, skipped);
    }
  }
}

/** The same for a stepwise evaluation: a failure starts the steps again, with the campaign skipped. */
export function* withBulkheadsStepwise<R>(steps: (skipped: Skipped) => Generator<void, R, void>): Generator<void, R, void> {
  const skipped = new Map<number, ExtensionFailure>();
  for (;;) {
    try {
      return yield* steps(skipped);
    } catch (error) {
      skip(error, skipped);
    }
  }
}

function skip(error: unknown, skipped: Map<number, ExtensionFailure>): void {
  if (!(error instanceof ExtensionFailure) || error.campaignId === null || skipped.has(error.campaignId)) throw error;
  skipped.set(error.campaignId, error);
}

/** The failures that made an evaluation skip its campaigns, as its result keeps them. */
export function failureRecords(skipped: Skipped): ExtensionFailureRecord[] {
  if (skipped.size === 0) return [];
  return [...skipped.values()].map((f) => ({
    campaignId: f.campaignId!,
    eventIndex: f.eventIndex,
    kind: f.kind,
    extension: f.extension,
    source: f.source,
    call: f.call,
    at: f.at,
    message: firstLine(f.error),
    error: f.error,
  }));
}

/** The explanation's words for a skipped campaign. */
export function skippedDetail(failure: ExtensionFailure): string {
  return `${failure.message}; the campaign is skipped for this event`;
}
