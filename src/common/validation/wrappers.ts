import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { AppError } from '../errors/app-error.js';
import { NestedObject, Required } from './validators.js';

/** Validators that make a member hold an object or an array: with one of them, a required member is a wrapper. */
const CONTAINER_NAMES = new Set(['isObject', 'isArray']);

/** A DTO class, as the pipe's metatype. */
export type DtoClass = abstract new (...args: never[]) => unknown;

const cache = new Map<DtoClass, readonly string[]>();

/**
 * The wrappers of a body DTO: its required top-level members that hold an object or an array (`user`, `campaign`,
 * `behaviors`, the admin `organization` and `application`). A required scalar (perform's `domain`) is not one.
 */
export function wrappersOf(dto: DtoClass): readonly string[] {
  let wrappers = cache.get(dto);
  if (!wrappers) {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false);
    const required = new Set(metadatas.filter((m) => m.type === 'isDefined').map((m) => m.propertyName));
    const containers = metadatas.filter((m) => m.type === 'nestedValidation' || CONTAINER_NAMES.has(m.name ?? '')).map((m) => m.propertyName);
    wrappers = [...new Set(containers.filter((name) => required.has(name)))];
    cache.set(dto, wrappers);
  }
  return wrappers;
}

/**
 * A body without a required wrapper (absent or null) answers `missing_data` naming it, before anything inside the
 * body is looked at: the members sent beside it (often the wrapper's own members, sent flat) are not reported as
 * unknown, since the request is missing its wrapper first of all. Bodies that are not plain objects are left to the
 * DTO validation.
 */
export function checkWrappers(dto: DtoClass, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const record = body as Record<string, unknown>;
  const missing = wrappersOf(dto).filter((name) => !Object.hasOwn(record, name) || record[name] === undefined || record[name] === null);
  if (!missing.length) return;
  const details = missing.map((field) => ({ field, message: 'is required' }));
  throw new AppError('missing_data', `missing ${missing.join(', ')}`, details);
}

/**
 * A required member holding one object of `input`: a body's wrapper (`{ "tier": { ... } }`, see checkWrappers) or a
 * required nested object. Absent is `missing_data`; an array or a scalar is `validation`; the object is validated as
 * `input` and documented as `input`, with the description given. The decorators are applied as they were written
 * one above the other (ApiProperty, Required, NestedObject, Type), lowest first, keeping the validators' order.
 */
export function RequiredObject(input: new () => object, description?: string): PropertyDecorator {
  return applyDecorators(Type(() => input), NestedObject(), Required(), ApiProperty({ type: input, ...(description === undefined ? {} : { description }) }));
}
