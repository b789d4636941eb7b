import type { ErrorCode, ErrorDetail } from '../errors/app-error.js';

/** Deeper than any request body of the contract needs (a behavior's criteria values sit about 11 levels down). */
export const MAX_BODY_DEPTH = 32;
/**
 * Far more than any object or array of the contract holds (V2 takes 1,000 events, a customer 200 tags). Bounds the
 * work a body within BODY_LIMIT can cost: class-transformer dedupes an object's keys in quadratic time (60,000
 * attributes took 6 s of CPU), and every item of an array where an object belongs costs a validation error.
 */
export const MAX_MEMBERS = 1_000;
export const MAX_ITEMS = 10_000;

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | number | null;
}

function path(node: Node | null): string {
  const parts: Array<string | number> = [];
  for (let at = node; at && at.key !== null; at = at.parent) parts.unshift(at.key);
  return parts.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || 'body';
}

export interface BodyShapeProblem extends ErrorDetail {
  code: Extract<ErrorCode, 'validation' | 'payload_too_large'>;
}

/**
 * What makes the shape of any parsed JSON body unusable, or null: nesting deeper than MAX_BODY_DEPTH (the recursive
 * transform and validation would overflow the stack: `validation`), an object or array over MAX_MEMBERS or MAX_ITEMS
 * (`payload_too_large`). Walks without recursion, so any depth is safe to check. What a body's text and member names
 * may hold is checked where the body becomes a DTO (request-input.ts) or by its route (V2).
 */
export function bodyShapeProblem(body: unknown): BodyShapeProblem | null {
  const stack: Node[] = [{ value: body, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value !== 'object' || value === null) continue;
    if (node.depth >= MAX_BODY_DEPTH) return { code: 'validation', field: path(node), message: `is nested too deeply (at most ${MAX_BODY_DEPTH} levels)` };
    const depth = node.depth + 1;
    if (Array.isArray(value)) {
      if (value.length > MAX_ITEMS) return { code: 'payload_too_large', field: path(node), message: `holds more than ${MAX_ITEMS} items` };
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth, parent: node, key: i });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_MEMBERS) return { code: 'payload_too_large', field: path(node), message: `holds more than ${MAX_MEMBERS} members` };
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]], depth, parent: node, key: keys[i] });
  }
  return null;
}
