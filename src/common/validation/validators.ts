import { registerDecorator, ValidationArguments, ValidationOptions, IsDefined, IsObject, ValidateIf, ValidateNested } from 'class-validator';

/** An IANA time zone name that this runtime knows, like America/New_York. */
export function isTimeZone(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function IsTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTimeZone',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a known IANA time zone such as America/New_York', ...options },
      validator: { validate: (value: unknown) => isTimeZone(value) },
    });
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| ?[+-]\d{2}:?\d{2})?$/;

/** Flat values: boolean, string (datetimes are strings), integer, decimal. No objects, arrays or null. */
export function flatObjectProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object';
  for (const [key, item] of Object.entries(value)) {
    if (key.length === 0 || key.length > 100) return `has a key of invalid length`;
    const type = typeof item;
    if (type === 'string' || type === 'boolean') continue;
    if (type === 'number' && Number.isFinite(item)) continue;
    return `member "${key}" must be a boolean, string, integer, decimal or datetime (nested objects, arrays and null are not supported)`;
  }
  return null;
}

export function IsFlatObject(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isFlatObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) => `${args.property} ${flatObjectProblem(args.value) ?? 'is invalid'}`,
        ...options,
      },
      validator: { validate: (value: unknown) => flatObjectProblem(value) === null },
    });
}

export function isIsoDatetime(value: unknown): boolean {
  if (typeof value !== 'string' || !ISO_DATETIME.test(value) || Number.isNaN(Date.parse(normalizeOffset(value)))) return false;
  // Date.parse rolls 2026-02-30 over to March 2: the calendar date must exist as written.
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * `2026-01-05 10:00:00 +0200` → `2026-01-05T10:00:00+02:00`, which Date.parse reads everywhere. A datetime without
 * an offset is taken as UTC (never as the server's local time).
 */
export function normalizeOffset(value: string): string {
  const text = value.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T').replace(/ ?([+-]\d{2}):?(\d{2})$/, '$1:$2');
  return text.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/.test(text) ? `${text}Z` : text;
}

/** A required member: absent (or null) is `missing_data`, unlike a present but invalid value (`validation`). */
export function Required(options?: ValidationOptions): PropertyDecorator {
  return IsDefined({ message: '$property is required', ...options });
}

/**
 * An optional member: absent (undefined) skips its checks, but an explicit `null` is validated like any value and
 * fails, instead of slipping through as class-validator's IsOptional would let it.
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/**
 * A member holding one object of a DTO class (with `@Type`). ValidateNested alone lets an array through (it
 * validates the items: none when the array is empty), and the service then read the members of an array: a 500.
 * An array or a scalar there is `validation`.
 */
export function NestedObject(): PropertyDecorator {
  return (target, propertyName) => {
    IsObject({ message: '$property must be an object' })(target, propertyName as string);
    ValidateNested()(target, propertyName as string);
  };
}

export function IsDatetime(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDatetime',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be an ISO 8601 datetime such as 2026-01-05T10:00:00Z or 2026-01-05 10:00:00 +0200', ...options },
      validator: { validate: (value: unknown) => isIsoDatetime(value) },
    });
}

/** A validated datetime string (any accepted form) as a Date. */
export function toDate(value: string): Date {
  return new Date(normalizeOffset(value));
}
