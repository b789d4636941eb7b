import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * Names that are prototype keys (contract §18): refused as names of events, behaviors and goals, and as names of
 * attributes and context members, wherever a name is written. Used as a key of a plain object, such a name would reach
 * the object's prototype instead of a member of its own.
 */
export const PROTOTYPE_KEYS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

const KEYS = new Set(PROTOTYPE_KEYS);

/** Whether a name is a prototype key (exactly: `Constructor` and ` __proto__` are ordinary names). */
export function isPrototypeKey(name: unknown): boolean {
  return typeof name === 'string' && KEYS.has(name);
}

/** Whether a dotted path (a criterion's field, `context.constructor`) names a prototype key in any of its segments. */
export function hasPrototypeKeySegment(path: unknown): boolean {
  return typeof path === 'string' && path.split('.').some(isPrototypeKey);
}

/** The message after the field's name, for an answer's `details`. */
export const PROTOTYPE_KEY_MESSAGE = `must not be a prototype key (${PROTOTYPE_KEYS.join(', ')})`;

/** class-validator: the string property is not a prototype key (other values are left to the other validators). */
export function IsNotPrototypeKey(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotPrototypeKey',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property ${PROTOTYPE_KEY_MESSAGE}`, ...options },
      validator: { validate: (value: unknown) => !isPrototypeKey(value) },
    });
}

/** The index of the first criterion whose field names a prototype key (`user.attributes.constructor`), or -1. */
function prototypeCriterion(value: unknown): number {
  if (!Array.isArray(value)) return -1;
  return value.findIndex((item: unknown) => typeof item === 'object' && item !== null && hasPrototypeKeySegment((item as { field?: unknown }).field));
}

/** class-validator, beside IsCriteria: no criterion's field names a prototype key (other problems are IsCriteria's). */
export function HasNoPrototypeKeyFields(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'hasNoPrototypeKeyFields',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) => {
          const i = prototypeCriterion(args.value);
          const field = (args.value as Array<{ field: string }>)[i]?.field;
          return `${args.property}[${i}].field names ${field}: an attribute name ${PROTOTYPE_KEY_MESSAGE}`;
        },
        ...options,
      },
      validator: { validate: (value: unknown) => prototypeCriterion(value) < 0 },
    });
}
