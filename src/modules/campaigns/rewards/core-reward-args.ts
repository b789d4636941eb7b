import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Expose, Transform } from 'class-transformer';
import { IsDefined, registerDecorator, ValidateIf, type ValidationArguments } from 'class-validator';
import { intProblem, nameProblem, positiveNumberProblem, REQUIRED, textProblem } from '../behaviors/value-problems.js';

/**
 * The built-in reward kinds' arguments, as an extension's args class states its own: their members as the OpenAPI
 * document holds them (the outcome forms, extension-document.ts) and their write-time checks, whose messages are a
 * behavior's (behaviors/value-problems.ts). behavior-validation.ts checks an outcome with them.
 */

/** class-validator: the member is valid when `problem` answers null; what it answers is the message. */
function Checked(problem: (value: unknown) => string | null): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'behaviorValue',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ value }: ValidationArguments) => problem(value) ?? 'is invalid' },
      validator: { validate: (value: unknown) => problem(value) === null },
    });
}

/** Present and not null. */
const Present = () => IsDefined({ message: REQUIRED });

/** An offer's id (deal) or a creative's (ad_unit). */
export class OutcomeIdRef {
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 })
  @Present()
  @Checked((id) => intProblem(id, 1))
  id: number;
}

export class EventOutcomeInput {
  @ApiProperty({ example: 'explorer_done', description: 'The event raised for the customer. Not __proto__, constructor or prototype' })
  @Present()
  @Checked(nameProblem)
  name: string;
  @ApiPropertyOptional({ type: Number, exclusiveMinimum: true, minimum: 0, example: 1, default: 1, description: 'Count of the raised event (> 0)' })
  // An event outcome without its name is told that alone. Absent or null, `by` is stored as 1.
  @ValidateIf((event: EventOutcomeInput) => event.name !== undefined && event.name !== null)
  @Expose()
  @Transform(({ value }: { value: unknown }) => value ?? 1)
  @Checked(positiveNumberProblem)
  by?: number;
}

export class OutcomeTierRef {
  @ApiProperty({ example: 'Gold', description: 'A tier of the organization (any case)' })
  @Present()
  @Checked((name) => textProblem(name))
  name: string;
}

/** The points an outcome credits, as its member of OutcomeInput documents them. */
export const POINTS_PROPERTY = { type: 'integer', minimum: 1, example: 10, description: 'Points credited' } as const;

/** The points outcome's arguments: a bare number, not an object, checked as this class's `value` (as an operator's value is). */
export class PointsValue {
  @ApiProperty(POINTS_PROPERTY)
  @Present()
  @Checked((points) => intProblem(points, 1))
  value: number;
}

/** The args classes whose outcomes hold a bare value, checked as the class's `value` member. */
export const BARE_VALUE_ARGS: ReadonlySet<Type> = new Set([PointsValue]);
