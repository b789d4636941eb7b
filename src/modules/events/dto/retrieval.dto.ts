import { ApiProperty } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { mapOf, RetrievalBehaviorView } from './behavior-progress.dto.js';

/** The retrieval query (contract §10); documented on the route with ApiQuery, as its two spellings need words. */
export class RetrievalQuery {
  @IsOptional()
  division_ids?: string | string[];
}

export const DIVISION_IDS_QUERY = {
  name: 'division_ids',
  required: false,
  schema: { type: 'array', items: { type: 'integer' } },
  style: 'form',
  explode: false,
  example: [1, 2],
  description:
    'Multi-org only: division ids, comma-separated (division_ids=1,2) or repeated with brackets (division_ids[]=1&division_ids[]=2). ' +
    "Limits the behaviors to campaigns of those divisions; every id must be a division of the organization (else 400 validation). " +
    'Ignored when multi-org is off; absent, every live campaign.',
} as const;

/**
 * The bracket form of division_ids (`division_ids[]=1&division_ids[]=2`, the seed's), as its own parameter: OpenAPI
 * cannot say that one parameter takes two spellings, and a client generated from the document, or Swagger UI's "Try
 * it out", sends only the spellings it names. The query parser reads both into the same list.
 */
export const DIVISION_IDS_BRACKETS_QUERY = {
  name: 'division_ids[]',
  required: false,
  schema: { type: 'array', items: { type: 'integer' } },
  style: 'form',
  explode: true,
  description:
    "Multi-org only: the same ids as division_ids, in the seed's form: repeated with brackets (division_ids[]=1&division_ids[]=2). " +
    'Sent with division_ids, the ids of both count.',
} as const;

/** A customer's available points and progress in every live campaign's behaviors. */
export class RetrievalResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: 'integer', example: 55 }) available_points: number;
  @ApiProperty(mapOf(RetrievalBehaviorView, 'Behavior name → the behavior with the customer\'s progress, for every live campaign (or those of division_ids)'))
  behaviors: Record<string, RetrievalBehaviorView>;
}
