import { AppError } from '../errors/app-error.js';
import { isPrototypeKey, PROTOTYPE_KEY_MESSAGE } from './reserved-names.js';

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

/** By DTO class: its members whose keys, at any depth, are names the client chooses (V1 `events`). */
const NAME_MAPS = new WeakMap<object, Set<string>>();

/**
 * Marks a member of a request body's DTO whose keys are names the client chooses (event names, attributes, context
 * members): a prototype key among them is `validation` (contract §18), not an unknown attribute. On a top-level member
 * of the body's DTO; `within` names a member inside it (`@HoldsNames('attributes') user` marks `user.attributes`).
 */
export function HoldsNames(within?: string): PropertyDecorator {
  return (target, propertyName) => {
    const names = NAME_MAPS.get(target.constructor) ?? new Set<string>();
    names.add(within ? `${String(propertyName)}.${within}` : String(propertyName));
    NAME_MAPS.set(target.constructor, names);
  };
}

/**
 * A request body about to become a DTO of class `dto` (its depth already bounded by bodyShapeProblem): text
 * PostgreSQL cannot store, in a value or a member name, is `validation`, and so is a prototype key among the names
 * of a member marked HoldsNames; any other member with a reserved name is `argument_error` (never silently dropped).
 */
export function checkBody(body: unknown, dto?: object): void {
  const names = (dto && NAME_MAPS.get(dto)) || new Set<string>();
  const reserved: string[] = [];
  const stack: Array<{ node: unknown; path: string; named: boolean }> = [{ node: body, path: '', named: false }];
  while (stack.length > 0) {
    const { node, path, named } = stack.pop()!;
    if (typeof node === 'string' && !isStorableText(node)) throw AppError.validation(path || 'body', UNSTORABLE_MESSAGE);
    if (typeof node !== 'object' || node === null) continue;
    for (const key of Object.keys(node)) {
      const field = Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!isStorableText(key)) throw AppError.validation(field, 'is a member name with NUL characters or unpaired surrogates');
      if (named && !Array.isArray(node) && isPrototypeKey(key)) throw AppError.validation(field, `is refused: a name ${PROTOTYPE_KEY_MESSAGE}`);
      if (!Array.isArray(node) && RESERVED.has(key)) reserved.push(field);
      stack.push({ node: (node as Record<string, unknown>)[key], path: field, named: named || (!Array.isArray(node) && names.has(field)) });
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
