import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors/app-error.js';
import { bodyShapeProblem } from './body-shape.js';
import { checkBody, dropReservedQueryMembers, isStorableText } from './request-input.js';
import { checkWrappers, DtoClass } from './wrappers.js';

const WORD = /\w/;

/**
 * `message` less its leading `property` and one space, as `^property\b ?` would strip: class-validator messages start
 * with the property's name. No regular expression is built from the property, which may be any member name a
 * client sent (an unknown member named `[` must not become an invalid pattern).
 */
export function withoutProperty(message: string, property: string): string {
  if (!message.startsWith(property)) return message;
  const before = property.slice(-1);
  const after = message.charAt(property.length);
  if (WORD.test(before) === WORD.test(after)) return message; // no word boundary right after the name
  const rest = message.slice(property.length);
  return (rest.startsWith(' ') ? rest.slice(1) : rest) || message;
}

export function flatten(errors: ValidationError[], parent = ''): Array<ErrorDetail & { constraint: string }> {
  const out: Array<ErrorDetail & { constraint: string }> = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      out.push({ field, constraint, message: withoutProperty(message, error.property) });
    }
    if (error.children?.length) out.push(...flatten(error.children, field));
  }
  return out;
}

/**
 * Validates request DTOs and answers with the contract's codes: unknown members → argument_error (never dropped),
 * a required member absent → missing_data, anything else → validation. Every offending field is listed in details.
 */
export function toAppError(errors: ValidationError[]): AppError {
  const all = flatten(errors);
  const pick = (constraint: string) => all.filter((e) => e.constraint === constraint);
  const unknown = pick('whitelistValidation');
  if (unknown.length) {
    const details = unknown.map((e) => ({ field: e.field, message: 'is not a known attribute' }));
    return new AppError('argument_error', `unknown attributes: ${details.map((d) => d.field).join(', ')}`, details);
  }
  const missing = pick('isDefined');
  if (missing.length) {
    const details = missing.map((e) => ({ field: e.field, message: 'is required' }));
    return new AppError('missing_data', `missing ${details.map((d) => d.field).join(', ')}`, details);
  }
  // One entry per field: its first failed constraint says what is wrong.
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const { field, message } of all) {
    if (seen.has(field)) continue;
    seen.add(field);
    details.push({ field, message });
  }
  // A message naming a member inside the field (`events[0] ...`, `events.purchase.store_id ...`) follows it unspaced.
  return new AppError('validation', details.map((d) => `${d.field}${/^[[.]/.test(d.message) ? '' : ' '}${d.message}`).join('; '), details);
}

function pipe(forbidUnknown: boolean): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: forbidUnknown,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: toAppError,
  });
}

/** Whether the pipe turns the value into a DTO class (bodies typed `unknown` are left to their route, as sent). */
function becomesDto(metadata: ArgumentMetadata): boolean {
  return typeof metadata.metatype === 'function' && ![Object, Array, String, Number, Boolean].includes(metadata.metatype as never);
}

/**
 * Bodies reject unknown members; query strings ignore unknown parameters (proxies and clients add their own, such as
 * cache busters), while the known ones are still validated. A body that becomes a DTO is first checked for a shape the
 * transformation cannot handle (bodyShapeProblem: too deep, too many members or items), then for a missing wrapper
 * (checkWrappers: missing_data wins over anything sent beside it), then for text PostgreSQL cannot store, prototype keys
 * among the names a DTO member holds (HoldsNames: V1 events, a customer's attributes) and member names the transformation
 * would drop (checkBody). A body left as sent (V2) is its route's to check,
 * which answers as the contract says for it (missing_data naming the event).
 */
@Injectable()
export class AppValidationPipe implements PipeTransform {
  private readonly strict = pipe(true);
  private readonly lenient = pipe(false);

  /** Query DTOs known to accept an empty query string: most requests send none, and the answer never changes. */
  private readonly emptyQueryOk = new Set<unknown>();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A path value with NUL cannot name any stored object (PostgreSQL refuses it in a query, a 500): the empty
    // string names none either (every id, external_id and permalink is 1+ characters), so each route answers its own
    // "not found" (not_found, No_active_campaign_found) as for any other value that names nothing.
    // A path value otherwise stays the text sent: Nest's conversion to a number would read `01`, `1.0`, `0x1`, `+1`,
    // `1e0` and ` 1` as 1, so each route's pipe reads it instead (IdPipe: canonical decimal only, contract §18).
    if (metadata.type === 'param' && typeof value === 'string') return isStorableText(value) ? value : '';
    if (metadata.type !== 'query') {
      if (metadata.type === 'body' && becomesDto(metadata)) {
        const problem = bodyShapeProblem(value);
        if (problem) throw new AppError(problem.code, `${problem.field} ${problem.message}`, [{ field: problem.field, message: problem.message }]);
        checkWrappers(metadata.metatype as DtoClass, value);
        checkBody(value, metadata.metatype);
      }
      return this.strict.transform(value, metadata);
    }
    dropReservedQueryMembers(value);
    const empty = typeof value === 'object' && value !== null && Object.keys(value).length === 0 && typeof metadata.metatype === 'function';
    if (empty && this.emptyQueryOk.has(metadata.metatype)) return new (metadata.metatype as new () => unknown)();
    const transformed: unknown = await this.lenient.transform(value, metadata);
    if (empty) this.emptyQueryOk.add(metadata.metatype);
    return transformed;
  }
}
