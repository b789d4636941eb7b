import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isDay } from '../../engine/index.js';
import { flatObjectProblem } from '../../common/validation/validators.js';
import { LIMIT_SETTINGS, limits } from '../../config/limits.js';
import { eventNameProblem, memberProblem, membersProblem } from '../../common/validation/event-limits.js';

export const MAX_COUNT = 1_000_000;

const FLAT_VALUE_MESSAGE = 'must be a boolean, string, integer, decimal or datetime (nested objects, arrays and null are not supported)';

const isFlatValue = (value: unknown) => typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

function payloadProblem(path: string, payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return `${path} must be a positive integer count or an object`;
  for (const [key, value] of Object.entries(payload)) {
    if (key === 'context') {
      const problem = flatObjectProblem(value);
      if (problem) return `${path}.context ${problem}`;
      const member = membersProblem(value as object);
      if (member) return `${path}.context.${member[0]} ${member[1]}`;
      const division = (value as Record<string, unknown>).division_id;
      if (division !== undefined && !/^\d{1,10}$/.test(String(division))) return `${path}.context.division_id must be a division id`;
    } else if (key === 'occurred_on') {
      if (!isDay(value)) return `${path}.occurred_on must be a date YYYY-MM-DD`;
    } else {
      const problem = memberProblem(key, value) ?? (isFlatValue(value) ? null : FLAT_VALUE_MESSAGE);
      if (problem) return `${path}.${key} ${problem}`;
    }
  }
  return null;
}

function countProblem(path: string, value: number): string | null {
  return Number.isInteger(value) && value >= 1 && value <= MAX_COUNT ? null : `${path} must be a positive integer count (at most ${MAX_COUNT})`;
}

/**
 * What is wrong with a V1 `events` map (contract §7 forms), or null. Absent, null and `{}` are not judged here:
 * they are `missing_event_data`, answered by the use case.
 */
export function eventsProblem(events: unknown): string | null {
  if (events === undefined || events === null || (Array.isArray(events) && events.length === 0)) return null;
  if (typeof events !== 'object' || Array.isArray(events)) return 'events must be an object mapping event names to a count, an object or an array';
  let instances = 0;
  for (const [name, value] of Object.entries(events)) {
    const path = `events.${name}`;
    if (name.length === 0 || name.length > 255) return 'events has an event name that is empty or longer than 255 characters';
    const nameProblem = eventNameProblem(name);
    if (nameProblem) return `${path} is refused: an event name ${nameProblem}`;
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0) return `${path} must not be an empty array`;
    for (const [i, item] of items.entries()) {
      const itemPath = Array.isArray(value) ? `${path}[${i}]` : path;
      const problem = typeof item === 'number' ? countProblem(itemPath, item) : payloadProblem(itemPath, item);
      if (problem) return problem;
      instances += 1;
    }
  }
  const max = limits().v1Instances;
  return instances > max ? `events may hold at most ${max} event instances per request (${LIMIT_SETTINGS.v1Instances.env})` : null;
}

export function IsEventsMap(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isEventsMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (args: ValidationArguments) => eventsProblem(args.value) ?? 'events is invalid', ...options },
      validator: { validate: (value: unknown) => eventsProblem(value) === null },
    });
}
