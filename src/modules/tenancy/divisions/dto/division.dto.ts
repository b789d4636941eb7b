import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ApiDeletedAt, ApiTimestamp } from '../../../../common/validation/schedule.dto.js';
import { Optional, Required } from '../../../../common/validation/validators.js';
import { RequiredObject } from '../../../../common/validation/wrappers.js';

const MAX_ID = 2_147_483_647;
const NOT_BLANK = /\S/;
const BLANK_MESSAGE = '$property must not be blank';

export class CreateDivisionInput {
  @ApiProperty({
    example: 'Stores North',
    minLength: 1,
    maxLength: 100,
    description: 'Unique per organization among live divisions, case-insensitively',
  })
  @Required()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name: string;

  @ApiProperty({
    example: 1,
    type: 'integer',
    minimum: 1,
    description: 'A live division of the organization (the root division to start with: `root_division_id` of the bootstrap); another id is 400 validation',
  })
  @Required()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  parent_id: number;
}

export class UpdateDivisionInput {
  @ApiPropertyOptional({
    example: 'Stores North',
    minLength: 1,
    maxLength: 100,
    description: 'Unique per organization among live divisions, case-insensitively',
  })
  @Optional()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: BLANK_MESSAGE })
  name?: string;

  @ApiPropertyOptional({
    example: 1,
    type: 'integer',
    minimum: 1,
    description:
      'Moves the division (with its subtree) under this live division of the organization. The root is never moved, and a division ' +
      'cannot move under itself or its own subtree (400 validation)',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  parent_id?: number;
}

export class CreateDivisionBody {
  @RequiredObject(CreateDivisionInput)
  division: CreateDivisionInput;
}

export class UpdateDivisionBody {
  @RequiredObject(UpdateDivisionInput, 'Partial: only the members sent change')
  division: UpdateDivisionInput;
}

export class DivisionView {
  @ApiProperty({ example: 7, type: 'integer', description: 'Division id' }) id: number;
  @ApiProperty({ example: 'Stores North', description: 'A deleted division answers with " [DELETED AT <ISO>]" appended' }) name: string;
  @ApiProperty({
    example: 1,
    nullable: true,
    type: 'integer',
    description: 'The parent division; null only for the root division',
  })
  parent_id: number | null;
  @ApiProperty({
    example: [1, 7],
    type: 'integer',
    isArray: true,
    description: 'The path from the root down to this division, itself included',
  })
  ancestor_ids: number[];
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class DivisionResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: DivisionView }) division: DivisionView;
}

export class DivisionListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [DivisionView], description: 'Every live division in tree order: depth first from the root, siblings by id' })
  divisions: DivisionView[];
}
