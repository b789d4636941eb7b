import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryInteger } from '../validation/canonical-integer.js';

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10, example: 20, description: 'Items per page' })
  @IsOptional()
  @QueryInteger(1, 100)
  limit: number = 10;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, example: 2, description: 'Page number, from 1' })
  @IsOptional()
  @QueryInteger(1, 1_000_000)
  page: number = 1;
}

export function pageWindow(query: PageQuery): { take: number; skip: number } {
  return { take: query.limit, skip: (query.page - 1) * query.limit };
}
