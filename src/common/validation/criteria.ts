import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { CRITERION_OPS } from '../../engine/index.js';
import { extensionChecks } from './extension-checks.js';

export type CriteriaKind = 'targeting' | 'goal';

export const MAX_LIST_VALUES = 1_000;

const TARGETING_FIELD = /^user\.(tags|tier|division_id|lifetime_points|available_points|attributes\.[^.\s]{1,100})$/;
const GOAL_FIELD = /^(count|context\.[^.\s]{1,100}|[A-Za-z_][\w.]{0,199})$/;

/** The operators a criterion may name: the built-ins, then the registered extensions'. */
function operatorNames(): string[] {
  return [...CRITERION_OPS, ...extensionChecks().operators.keys()];
}

/** What is wrong with a criteria list (contract §5), or null when it is valid. */
export function criteriaProblem(value: unknown, kind: CriteriaKind): string | null {
  if (!Array.isArray(value)) return 'must be an array of {field, op, value}';
  if (value.length > 50) return 'may hold at most 50 criteria';
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return `[${i}] must be an object {field, op, value}`;
    const { field, op, value: expected, ...rest } = item as Record<string, unknown>;
    if (Object.keys(rest).length) return `[${i}] has unknown members: ${Object.keys(rest).join(', ')}`;
    const pattern = kind === 'targeting' ? TARGETING_FIELD : GOAL_FIELD;
    if (typeof field !== 'string' || !pattern.test(field)) {
      return kind === 'targeting'
        ? `[${i}].field must be user.tags, user.tier, user.division_id, user.lifetime_points, user.available_points or user.attributes.<key>`
        : `[${i}].field must be count, context.<key> or an attribute name`;
    }
    // Every evaluation compares the event (or customer) with the whole list: bound what one criterion costs.
    if (Array.isArray(expected) && expected.length > MAX_LIST_VALUES) return `[${i}].value may hold at most ${MAX_LIST_VALUES} values`;
    const extension = typeof op === 'string' ? extensionChecks().operators.get(op) : undefined;
    if (extension) {
      if (expected === undefined) return `[${i}].value is required for ${op}`;
      const [member, message] = Object.entries(extension(expected))[0] ?? [];
      if (message !== undefined) return `[${i}].${member === '' ? 'value' : member} ${message}`;
      continue;
    }
    if (typeof op !== 'string' || !(CRITERION_OPS as readonly string[]).includes(op)) return `[${i}].op must be one of ${operatorNames().join(', ')}`;
    if ((op === 'in' || op === 'nin') && !Array.isArray(expected)) return `[${i}].value must be an array for ${op}`;
    if (op === 'exists' && expected !== undefined && typeof expected !== 'boolean') return `[${i}].value must be a boolean for exists`;
    if (op !== 'exists' && expected === undefined) return `[${i}].value is required for ${op}`;
    if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) return `[${i}].value must not be an object`;
  }
  return null;
}

export function IsCriteria(kind: CriteriaKind, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCriteria',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (args: ValidationArguments) => { const problem = criteriaProblem(args.value, kind) ?? 'is invalid'; return `${args.property}${problem.startsWith('[') ? '' : ' '}${problem}`; }, ...options },
      validator: { validate: (value: unknown) => criteriaProblem(value, kind) === null },
    });
}
