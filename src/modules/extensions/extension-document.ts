import type { Type } from '@nestjs/common';
import { getSchemaPath, type OpenAPIObject, type SchemaObject } from '@nestjs/swagger';
import type { ExtensionDefinitions } from './extension-registry.js';

/** The args of complete_campaign and of a domain action without an args class. */
export const NO_ARGS: SchemaObject = { type: 'object', maxProperties: 0, description: 'none (complete_campaign, and domain actions without args)' };

/** The schemas a behavior's outcome is written and answered with: one member per reward kind. */
const OUTCOME_SCHEMAS = ['OutcomeInput', 'OutcomeConfigView'];

/**
 * The served document with the application's extensions in it, so that Swagger UI shows them and a client generated
 * from it types them (Talon.One's custom effects come back untyped; ours do not): the domain actions as perform's
 * `domain` values, the args classes of those that take any as the forms of its `args`; each reward kind a member of an
 * outcome, its arguments' class as its schema (the class is among the document's models: ExtensionRegistry.models);
 * each criteria operator among a criterion's `op` values, and an operator whose value is an object among its `value`'s
 * forms (the other forms, strings, numbers, booleans and lists, are already there). Without extensions the document is
 * unchanged.
 */
export function extendDocument(document: OpenAPIObject, extensions: ExtensionDefinitions, domains: readonly string[]): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  const body = (schemas.PerformBody as SchemaObject).properties ?? {};
  (body.domain as SchemaObject).enum = [...domains];
  const args = extensions.domainActions.filter((d) => d.model);
  if (args.length) {
    // anyOf, not oneOf: the forms are told apart by the body's domain, not by the args, and `{}` may fit several.
    const forms: SchemaObject[] = [NO_ARGS, ...args.map((d) => ({ description: `args of ${d.name} (extension: ${d.source})`, allOf: [{ $ref: getSchemaPath(d.model!) }] }))];
    body.args = { ...(body.args as SchemaObject), anyOf: forms };
    delete (body.args as SchemaObject).example;
  } else {
    // No domain action takes any: an object without members is all perform accepts.
    (body.args as SchemaObject).maxProperties = 0;
  }
  for (const kind of extensions.rewardKinds) {
    const member: SchemaObject = kind.model
      ? { description: `${kind.description} (extension: ${kind.source})`, allOf: [{ $ref: getSchemaPath(kind.model) }] }
      : { type: 'object', description: `${kind.description} (extension: ${kind.source})` };
    for (const name of OUTCOME_SCHEMAS) ((schemas[name] as SchemaObject).properties ??= {})[kind.name] = member;
  }
  const criterion = (schemas.Criterion as SchemaObject).properties ?? {};
  const op = criterion.op as SchemaObject;
  op.enum = [...(op.enum ?? []), ...extensions.criteriaOperators.map((o) => o.name)];
  const value = criterion.value as SchemaObject;
  for (const operator of extensions.criteriaOperators) {
    const form = operator.model && (modelSchema(document, operator.model)?.properties?.value as SchemaObject | undefined);
    if (form?.type === 'object') value.oneOf = [...(value.oneOf ?? []), form];
  }
  return document;
}

/** The component a class (an extension's arguments or value) is in the document under. */
export function modelSchema(document: OpenAPIObject, model: Type): SchemaObject | undefined {
  return document.components?.schemas?.[getSchemaPath(model).split('/').pop()!] as SchemaObject | undefined;
}
