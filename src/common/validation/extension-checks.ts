import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { CORE_REWARDS, type Rewards } from '../../engine/index.js';
import { flatten } from './validation.pipe.js';

/**
 * What is wrong with an extension's arguments: a member's dotted path (relative to the arguments; '' for the arguments
 * themselves) → what is wrong with it. Empty when they are valid.
 */
export type ArgsProblems = Record<string, string>;
export type ArgsCheck = (value: unknown) => ArgsProblems;

/** The write-time checks of the registered extensions, by name: reward kinds' arguments and operators' values. */
export interface ExtensionChecks {
  rewards: ReadonlyMap<string, ArgsCheck>;
  operators: ReadonlyMap<string, ArgsCheck>;
  /** Every reward kind registered, built-ins included: a behavior's completion points count what each declares. */
  rewardKinds: Rewards;
}

/** class-validator's checks of a value's type and presence, named before its bounds. */
const TYPE_CHECK = /^(whitelistValidation|isDefined|is(Int|String|Number|Boolean|Object|Array|Uuid|Date|Enum|In))$/;

let current: ExtensionChecks = { rewards: new Map(), operators: new Map(), rewardKinds: CORE_REWARDS };

/**
 * The process's extension checks, set by the extension registry at boot (as `useLimits` sets the limits): behavior and
 * criteria validation runs outside Nest's injection, in functions and class-validator decorators.
 */
export function useExtensionChecks(checks: Omit<ExtensionChecks, 'rewardKinds'> & { rewardKinds?: Rewards }): void {
  current = { ...checks, rewardKinds: checks.rewardKinds ?? CORE_REWARDS };
}

export function extensionChecks(): ExtensionChecks {
  return current;
}

/**
 * An object checked against a class (class-validator, unknown members refused), as request bodies are; without a
 * class, any object passes.
 */
export function objectCheck(dto: Type | undefined): ArgsCheck {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { '': 'must be an object' };
    if (!dto) return {};
    const problems: ArgsProblems = {};
    // Per member, what it is before the bounds it breaks: a type check (isInt, isString, ...) is named first, whatever
    // the order of the class's decorators ("ten" is "must be an integer", not "must not be greater than 1000").
    const found = flatten(validateSync(plainToInstance(dto, value), { whitelist: true, forbidNonWhitelisted: true }));
    const typeFirst = [...found.filter((p) => TYPE_CHECK.test(p.constraint)), ...found.filter((p) => !TYPE_CHECK.test(p.constraint))];
    for (const { field, constraint, message } of typeFirst) {
      problems[field] ??= constraint === 'whitelistValidation' ? 'is not a known attribute' : message;
    }
    return problems;
  };
}

/** The members a class states its checks for (class-validator), in the order it declares them: those objectCheck takes. */
export function declaredMembers(dto: Type): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((m) => m.propertyName))];
}

/** A criterion's `value` checked as the `value` member of `dto` (no class: any value passes the check). */
export function valueCheck(dto: Type | undefined): ArgsCheck {
  const check = objectCheck(dto);
  return (value) => (dto ? check({ value }) : {});
}
