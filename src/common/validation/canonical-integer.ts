import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * Canonical decimal (contract §18): digits only, no sign, point, exponent, spaces, or leading zero (`0` alone is
 * canonical). `1` is; `01`, `+1`, `1.0`, `1e0`, `0x1`, ` 1` and the empty string are not.
 */
const CANONICAL = /^(0|[1-9]\d{0,14})$/;

/** Whether `text` is an integer written in canonical decimal (at most 15 digits, so its number is exact). */
export function isCanonicalInteger(text: unknown): text is string {
  return typeof text === 'string' && CANONICAL.test(text);
}

/** The number a canonical decimal string writes; null for anything else. */
export function parseCanonicalInteger(text: unknown): number | null {
  return isCanonicalInteger(text) ? Number(text) : null;
}

/**
 * An integer query parameter from `min` to `max`. Only canonical decimal becomes a number; any other value (`01`,
 * `1.0`, `0x1`, `+1`, `1e0`, empty, repeated) stays as sent and fails with 400 `validation` naming the parameter.
 */
export function QueryInteger(min: number, max: number): PropertyDecorator {
  const message = `$property must be an integer from ${min} to ${max}, in decimal digits without sign or leading zero`;
  return (target, propertyName) => {
    const property = propertyName as string;
    Transform(({ value }: { value: unknown }) => parseCanonicalInteger(value) ?? value)(target, property);
    IsInt({ message })(target, property);
    Min(min, { message })(target, property);
    Max(max, { message })(target, property);
  };
}
