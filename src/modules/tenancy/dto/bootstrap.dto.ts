import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsString, Length } from 'class-validator';
import { IsTimeZone, NestedObject, Optional, Required } from '../../../common/validation/validators.js';

export class OrganizationInput {
  @ApiProperty({ example: 'Acme' })
  @Required()
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiPropertyOptional({ example: false, default: false })
  @Optional()
  @IsBoolean()
  multi_org_enabled?: boolean;

  @ApiPropertyOptional({ example: 'UTC', default: 'UTC', description: 'IANA time zone; the default for its customers' })
  @Optional()
  @IsTimeZone()
  time_zone?: string;
}

export class ApplicationInput {
  @ApiProperty({ example: 'Web' })
  @Required()
  @IsString()
  @Length(1, 200)
  name: string;
}

export class CreateOrganizationBody {
  @ApiProperty({ type: OrganizationInput })
  @Required()
  @NestedObject()
  @Type(() => OrganizationInput)
  organization: OrganizationInput;

  @ApiProperty({ type: ApplicationInput })
  @Required()
  @NestedObject()
  @Type(() => ApplicationInput)
  application: ApplicationInput;
}

export class CreateApplicationBody {
  @ApiProperty({ type: ApplicationInput })
  @Required()
  @NestedObject()
  @Type(() => ApplicationInput)
  application: ApplicationInput;
}

export class OrganizationView {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Acme' }) name: string;
  @ApiProperty({ example: false }) multi_org_enabled: boolean;
  @ApiProperty({ example: 'UTC' }) time_zone: string;
  @ApiProperty({ example: 1 }) root_division_id: number;
}

export class ApplicationView {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 'Web' }) name: string;
}

export class CredentialsResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ApplicationView }) application: ApplicationView;
  @ApiProperty({ example: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b' }) api_key: string;
  @ApiProperty({ example: 'kq3Zx9...', description: 'Shown once; only a hash is stored' }) api_secret: string;
}

export class BootstrapResponse extends CredentialsResponse {
  @ApiProperty({ type: OrganizationView }) organization: OrganizationView;
}

export class StatusOk {
  @ApiProperty({ example: 'ok' }) status: 'ok';
}
