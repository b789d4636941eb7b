import { ApiParam } from '@nestjs/swagger';

// The path segments naming a customer and a campaign, on the V1 events, retrieval and perform routes.

export const ApiUserIdParam = () =>
  ApiParam({
    name: 'user_id',
    schema: { type: 'string', format: 'uuid' },
    example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a',
    description: "The customer's id (a UUID, as answered when the customer was created); unknown or malformed → 404 not_found",
  });

export const ApiExternalIdParam = () =>
  ApiParam({
    name: 'external_id',
    schema: { type: 'string' },
    example: 'c-1',
    description: "The customer's external_id (the organization's own id for the customer); unknown → 404 not_found",
  });

/** A campaign id in the path; `missing` names the error of an id that is not a live campaign of the organization. */
export const ApiCampaignIdParam = (name: string, missing: string) =>
  ApiParam({ name, schema: { type: 'integer', minimum: 1 }, example: 42, description: `Campaign id; ${missing}` });

export const ApiPermalinkParam = (missing: string) =>
  ApiParam({ name: 'permalink', schema: { type: 'string' }, example: 'summer-explorer', description: `Campaign permalink; ${missing}` });
