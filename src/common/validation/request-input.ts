import { AppError } from '../errors/app-error.js';

/**
 * Member names the DTO transformation drops without a word: Nest's ValidationPipe deletes __proto__, prototype and
 * constructor (prototype pollution), and class-transformer skips members named like a method of Object.prototype
 * (toString, valueOf, hasOwnProperty, ...). Left alone, such a member would be silently ignored, or would reach
 * class-transformer as a value it cannot convert.
 */
const RESERVED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** A surrogate without its pair (JSON can spell one as a \u escape): PostgreSQL refuses it in jsonb. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text PostgreSQL can store: no NUL (refused in text and jsonb) and no unpaired surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

export const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

/**
 * A request body about to become a DTO (its depth already bounded by bodyShapeProblem): text PostgreSQL cannot store,
 * in a value or a member name, is `validation`, and a member with a reserved name is `argument_error` (never silently
 * dropped).
 */
export function checkBody(body: unknown): void {
  const reserved: string[] = [];
  const stack: Array<{ node: unknown; path: string }> = [{ node: body, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string' && !isStorableText(node)) throw AppError.validation(path || 'body', UNSTORABLE_MESSAGE);
    if (typeof node !== 'object' || node === null) continue;
    for (const key of Object.keys(node)) {
      const field = Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!isStorableText(key)) throw AppError.validation(field, 'is a member name with NUL characters or unpaired surrogates');
      if (!Array.isArray(node) && RESERVED.has(key)) reserved.push(field);
      stack.push({ node: (node as Record<string, unknown>)[key], path: field });
    }
  }
  if (reserved.length) {
    const details = reserved.map((field) => ({ field, message: 'is a reserved name, not a known attribute' }));
    throw new AppError('argument_error', `unknown attributes: ${reserved.join(', ')}`, details);
  }
}

/**
 * Query parameters with a reserved name, at any depth (`page[toString]=1`), are removed, as unknown parameters are
 * ignored: left in, class-transformer cannot turn `{toString: "1"}` into a number and throws.
 */
export function dropReservedQueryMembers(query: unknown): void {
  const stack: unknown[] = [query];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const key of Object.keys(node)) {
      if (RESERVED.has(key)) delete (node as Record<string, unknown>)[key];
      else stack.push((node as Record<string, unknown>)[key]);
    }
  }
}
