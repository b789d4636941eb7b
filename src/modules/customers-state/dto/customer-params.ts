import { ApiParam } from '@nestjs/swagger';

// The two path segments that name a customer: the service's id or the organization's own.

export const ApiUserIdParam = () =>
  ApiParam({
    name: 'user_id',
    schema: { type: 'string', format: 'uuid' },
    example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a',
    description:
      "The customer's UUID, assigned by the service when the customer is created (the `id` of POST .../users). " +
      "An unknown id, another organization's customer, or a value that is not a UUID answers 404 not_found",
  });

export const ApiExternalIdParam = () =>
  ApiParam({
    name: 'external_id',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'c-1',
    description:
      "The customer's external_id: your own id for the customer, given on create (URL-encoded). An unknown one answers 404 not_found",
  });
