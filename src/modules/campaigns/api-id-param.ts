import { ApiParam } from '@nestjs/swagger';

/** A path id (campaign, behavior, line item, creative group, creative, offer, audience job): an integer; anything else answers not_found. */
export const ApiIdParam = (name: string, description: string): MethodDecorator =>
  ApiParam({ name, description, schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } });
