import { ApiParam } from '@nestjs/swagger';

// The path segments that name objects, documented the same way on every route.

/** An integer id in the path (campaign, behavior, tier, division, webhook, ...); anything else answers its route's 404. */
export const ApiIdParam = (name: string, description: string, example = 42): MethodDecorator =>
  ApiParam({ name, description, example, schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } });

export const ApiUserIdParam = (): MethodDecorator =>
  ApiParam({
    name: 'user_id',
    schema: { type: 'string', format: 'uuid' },
    example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a',
    description:
      "The customer's UUID, assigned by the service when the customer is created (the `id` of POST .../users). " +
      "An unknown id, another organization's customer, or a value that is not a UUID answers 404 not_found",
  });

export const ApiExternalIdParam = (): MethodDecorator =>
  ApiParam({
    name: 'external_id',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'c-1',
    description: "The customer's external_id: your own id for the customer, given on create (URL-encoded). An unknown one answers 404 not_found",
  });

/** A campaign's permalink in the path; `description` says what an unknown one answers on the route. */
export const ApiPermalinkParam = (description: string): MethodDecorator =>
  ApiParam({ name: 'permalink', schema: { type: 'string', minLength: 1, maxLength: 255 }, example: 'summer-explorer', description });
