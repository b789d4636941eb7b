import { isDay } from './time.js';
import type { EventInstance, FlatValue } from './types.js';

type Payload = Record<string, unknown>;

function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fromPayload(name: string, payload: Payload, occurredAt: number): EventInstance {
  const { context, ...attributes } = payload;
  const day = isDay(attributes.occurred_on) ? attributes.occurred_on : null;
  return { name, count: 1, attributes, context: isPayload(context) ? (context as Record<string, FlatValue>) : {}, occurredAt, day };
}

/**
 * A V1 `events` map to instances (contract §7): an integer N is one instance of count N; an object is one instance of
 * count 1 whose attributes are the object without `context`; an array is one instance per element. Shapes are
 * validated before; anything else here yields no instance.
 */
export function instancesFromV1(events: Record<string, unknown>, occurredAt: number): EventInstance[] {
  const out: EventInstance[] = [];
  for (const [name, value] of Object.entries(events)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'number') out.push({ name, count: item, attributes: {}, context: {}, occurredAt, day: null });
      else if (isPayload(item)) out.push(fromPayload(name, item, occurredAt));
    }
  }
  return out;
}

/** A V2 event object to its instance: count = `by` (default 1). */
export function instanceFromV2(event: { name: string; by?: number; occurredAt: number; context?: Record<string, FlatValue> }): EventInstance {
  return { name: event.name, count: event.by ?? 1, attributes: {}, context: event.context ?? {}, occurredAt: event.occurredAt, day: null };
}
