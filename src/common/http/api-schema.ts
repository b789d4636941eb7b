import { ApiSchema, type ApiSchemaOptions } from '@nestjs/swagger';

/**
 * A named schema that says whether it takes members beyond those it lists (`additionalProperties`). @nestjs/swagger 12
 * copies @ApiSchema's options into the class schema, though its typing lists only name and description; the
 * response validation of the e2e tests and docs/openapi.json show it if an upgrade stops doing so.
 */
export const ApiSchemaOf = (description: string, additionalProperties: boolean): ClassDecorator =>
  ApiSchema({ description, additionalProperties } as ApiSchemaOptions);
