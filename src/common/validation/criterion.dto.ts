import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { CRITERION_OPS, type CriterionOp } from '../../engine/index.js';
import { MAX_LIST_VALUES } from './criteria.js';

/**
 * One criterion (contract §5) as the OpenAPI document shows it, in requests and answers alike: campaign and
 * creative-group `targeting` and goal `criteria` are arrays of these, all of which must hold. The checks themselves
 * are criteriaProblem's (criteria.ts); this class only documents the shape.
 */
@ApiSchema({ description: 'A condition {field, op, value}; a list of them holds when every one holds' })
export class Criterion {
  @ApiProperty({
    example: 'user.tags',
    description:
      'Targeting (campaign and creative group): user.tags, user.tier, user.division_id, user.lifetime_points, user.available_points ' +
      'or user.attributes.<key>. Goal criteria: count, context.<key> or an attribute of the event',
  })
  field: string;

  @ApiProperty({ enum: CRITERION_OPS, example: 'contains', description: 'in and nin take an array value; exists takes true (default) or false' })
  op: CriterionOp;

  @ApiPropertyOptional({
    example: 'vip',
    description:
      `What the field is compared with: a string, number, boolean or null; an array (at most ${MAX_LIST_VALUES} values) for in and nin; ` +
      'true or false for exists, where it may be left out (true). Numbers and datetimes given as strings compare as numbers and instants',
    oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: {} }],
  })
  value?: unknown;
}
