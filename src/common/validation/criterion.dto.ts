import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { CRITERION_OPS, type CriterionOp } from '../../engine/index.js';
import { MAX_LIST_VALUES } from './criteria.js';

/** The built-in operators that take an array value. */
export const LIST_OPS = ['in', 'nin'] as const satisfies readonly CriterionOp[];
/** The built-in operator whose value is an optional boolean. */
export const EXISTS_OPS = ['exists'] as const satisfies readonly CriterionOp[];
/** Every other built-in operator compares the field with one value. */
export const COMPARISON_OPS = CRITERION_OPS.filter((op) => !(LIST_OPS as readonly string[]).includes(op) && !(EXISTS_OPS as readonly string[]).includes(op));

const Field = () =>
  ApiProperty({
    example: 'user.tags',
    description:
      'Targeting (campaign and creative group): user.tags, user.tier, user.division_id, user.lifetime_points, user.available_points ' +
      'or user.attributes.<key>. Goal criteria: count, context.<key> or an attribute of the event',
  });

/**
 * One criterion (contract §5) as the OpenAPI document shows it, in requests and answers alike: campaign and
 * creative-group `targeting` and goal `criteria` are arrays of these, all of which must hold. The checks themselves
 * are criteriaProblem's (criteria.ts); this class only names the schema the DTOs refer to. Its component in the
 * document is replaced by extendDocument (extension-document.ts) with the union of the forms below, one per group of
 * built-in operators, and one per extension operator (`Criterion_<op>`), told apart by `op`.
 */
@ApiSchema({ description: 'A condition {field, op, value}: one of the forms below, told apart by op (each operator takes a value of its own form); a list of them holds when every one holds' })
export class Criterion {
  field: string;
  op: CriterionOp;
  value?: unknown;
}

/** The form of eq, ne, gt, gte, lt, lte and contains: a value to compare with. Documentation only (criteriaProblem validates). */
@ApiSchema({ description: `A criterion comparing the field with a value: ${COMPARISON_OPS.join(', ')}` })
export class ComparisonCriterion {
  @Field() field: string;

  @ApiProperty({ enum: COMPARISON_OPS, example: 'contains' })
  op: CriterionOp;

  @ApiProperty({
    example: 'vip',
    description:
      `What the field is compared with: a string, number, boolean or null (an array, at most ${MAX_LIST_VALUES} values, is accepted too). ` +
      'Numbers and datetimes given as strings compare as numbers and instants',
    oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: {} }],
  })
  value: unknown;
}

/** The form of in and nin: a list of values. Documentation only (criteriaProblem validates). */
@ApiSchema({ description: `A criterion on a list of values: ${LIST_OPS.join(', ')}` })
export class ListCriterion {
  @Field() field: string;

  @ApiProperty({ enum: LIST_OPS, example: 'in' })
  op: CriterionOp;

  @ApiProperty({
    type: 'array',
    items: {},
    maxItems: MAX_LIST_VALUES,
    example: ['Gold', 'Silver'],
    description: 'The values: in holds when the field equals one of them, nin when it equals none (or is absent)',
  })
  value: unknown[];
}

/** The form of exists: an optional boolean. Documentation only (criteriaProblem validates). */
@ApiSchema({ description: `A criterion on the field's presence: ${EXISTS_OPS.join(', ')}` })
export class ExistsCriterion {
  @Field() field: string;

  @ApiProperty({ enum: EXISTS_OPS, example: 'exists' })
  op: CriterionOp;

  @ApiPropertyOptional({ type: Boolean, example: true, description: 'true (the default, when left out): the field is present; false: it is absent' })
  value?: boolean;
}

/** The forms of the built-in operators, in the document's models (configureApp's extraModels); extendDocument unites them. */
export const CRITERION_FORMS = [ComparisonCriterion, ListCriterion, ExistsCriterion] as const;
