import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_STATUS } from '../errors/app-error.js';

export class ErrorDetailView {
  @ApiProperty({ example: 'user.time_zone' }) field: string;
  @ApiProperty({ example: 'must be a known IANA time zone such as America/New_York' }) message: string;
}

export class ErrorBody {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'validation', description: 'One of the codes of the error table (docs/api.md)' }) code: string;
  @ApiProperty({ example: 'user.time_zone must be a known IANA time zone such as America/New_York' }) message: string;
  @ApiPropertyOptional({ type: [ErrorDetailView] }) details?: ErrorDetailView[];
  @ApiPropertyOptional({ description: 'Only on internal_error: quote it when reporting the problem' }) request_id?: string;
}

export class ErrorEnvelope {
  @ApiProperty({ enum: ['error'], example: 'error' }) status: 'error';
  @ApiProperty({ type: ErrorBody }) errors: ErrorBody;
}
