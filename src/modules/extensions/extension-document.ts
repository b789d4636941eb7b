import type { Type } from '@nestjs/common';
import { getSchemaPath, type OpenAPIObject, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { CRITERION_FORMS } from '../../common/validation/criterion.dto.js';
import { CRITERION_OPS } from '../../engine/index.js';
import type { ExtensionDefinition, ExtensionDefinitions } from '../registry/index.js';

/** The args of complete_campaign and of a domain action without an args class. */
export const NO_ARGS: SchemaObject = { type: 'object', maxProperties: 0, description: 'none (complete_campaign, and domain actions without args)' };

/** The unions of an outcome's forms: as written, and as answered (with its id). */
type OutcomeUnion = 'OutcomeInput' | 'OutcomeConfigView';

/** The component of the form of one reward kind in an outcome union (`OutcomeInput_points`). */
export const outcomeForm = (union: OutcomeUnion, kind: string): string => `${union}_${kind}`;

/** The component of an extension operator's criterion form (`Criterion_within_km`): `_` keeps it apart from classes'. */
export const criterionForm = (op: string): string => `Criterion_${op}`;

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const componentOf = (path: string): string => path.split('/').pop()!;
/** A copy: the document's later passes (completeDocument) change schemas in place, so none is shared. */
const copy = <T>(schema: T): T => structuredClone(schema);

/**
 * The served document with the application's extensions in it, so that Swagger UI shows them and a client generated
 * from it types them (Talon.One's custom effects come back untyped; ours do not), each argument schema where it is
 * used (decision 0025, item 1):
 * - the domain actions as perform's `domain` values, the args classes of those that take any as the forms of its `args`;
 * - `OutcomeInput` and `OutcomeConfigView` as unions of one-member forms, `OutcomeInput_<kind>` (the answer's with its
 *   `id`), one per built-in kind and per extension kind, whose member's schema is its arguments' class (the class is
 *   among the document's models: ExtensionRegistry.models). A kind is a member's name, not a value: no discriminator
 *   names it, but each form requires a member the others lack, so one outcome fits one form;
 * - `Criterion` as a union on `op`: the built-ins' forms (ComparisonCriterion, ListCriterion, ExistsCriterion) and per
 *   extension operator `Criterion_<op>`, whose `value` is its value class's `value` member as the document holds it (a
 *   `$ref` to a nested class, an `allOf`, inline; `{}` without a class). The value class's own component is dropped
 *   unless something else refers to it. The ops' enums are disjoint, so `oneOf` validates exactly; the discriminator
 *   serves generators.
 * Without extensions the unions hold the built-ins alone.
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
  uniteOutcomes(schemas, extensions.rewardKinds);
  uniteCriteria(document, schemas, extensions.criteriaOperators);
  return document;
}

/** OutcomeInput and OutcomeConfigView (made from the bag classes' members) as unions of one-member forms. */
function uniteOutcomes(schemas: Record<string, SchemaObject | ReferenceObject>, kinds: readonly ExtensionDefinition[]): void {
  const input = schemas.OutcomeInput as SchemaObject;
  const view = schemas.OutcomeConfigView as SchemaObject;
  const members: Record<string, SchemaObject | ReferenceObject> = { ...input.properties };
  for (const kind of kinds) {
    members[kind.name] = kind.model
      ? { description: `${kind.description} (extension: ${kind.source})`, allOf: [{ $ref: getSchemaPath(kind.model) }] }
      : { type: 'object', description: `${kind.description} (extension: ${kind.source})` };
  }
  const unite = (union: OutcomeUnion, description: string, beside: Record<string, SchemaObject | ReferenceObject>) => {
    const forms = Object.entries(members).map(([kind, schema]) => {
      const name = outcomeForm(union, kind);
      schemas[name] = { type: 'object', required: [kind, ...Object.keys(beside)], properties: { [kind]: copy(schema), ...copy(beside) } };
      return ref(name);
    });
    schemas[union] = { description, oneOf: forms };
  };
  unite('OutcomeInput', 'One outcome: an object holding exactly one member, named by its reward kind, whose value is its arguments', {});
  unite('OutcomeConfigView', 'An outcome as stored: its id, and the one member of its reward kind', { id: view.properties!.id });
}

/** Criterion as the union of its forms on `op`, the extension operators' among them. */
function uniteCriteria(document: OpenAPIObject, schemas: Record<string, SchemaObject | ReferenceObject>, operators: readonly ExtensionDefinition[]): void {
  const byOp = new Map<string, string>();
  for (const form of CRITERION_FORMS) {
    for (const op of ((schemas[componentOf(getSchemaPath(form))] as SchemaObject).properties!.op as SchemaObject).enum!) byOp.set(op as string, getSchemaPath(form));
  }
  const unformed = CRITERION_OPS.filter((op) => !byOp.has(op));
  if (unformed.length) throw new Error(`the built-in operators ${unformed.join(', ')} have no criterion form (criterion.dto.ts)`);
  // The registry's order: the built-ins, then the extensions'.
  const mapping: Record<string, string> = Object.fromEntries(CRITERION_OPS.map((op) => [op, byOp.get(op)!]));
  const oneOf: ReferenceObject[] = CRITERION_FORMS.map((form) => ({ $ref: getSchemaPath(form) }));
  const field = (schemas[componentOf(getSchemaPath(CRITERION_FORMS[0]))] as SchemaObject).properties!.field;
  for (const operator of operators) {
    const name = criterionForm(operator.name);
    const value = (operator.model && modelSchema(document, operator.model)?.properties?.value) || {};
    schemas[name] = {
      type: 'object',
      description: `A criterion of the operator ${operator.name}: ${operator.description} (extension: ${operator.source})`,
      required: ['field', 'op', 'value'],
      properties: { field: copy(field), op: { type: 'string', enum: [operator.name] }, value: copy(value) },
    };
    mapping[operator.name] = ref(name).$ref;
    oneOf.push(ref(name));
  }
  schemas.Criterion = { description: (schemas.Criterion as SchemaObject).description, oneOf, discriminator: { propertyName: 'op', mapping } };
  dropUnreferenced(document, operators.flatMap((o) => (o.model ? [componentOf(getSchemaPath(o.model))] : [])));
}

/**
 * Removes the components named (and, in turn, those only they referred to) that nothing in the document refers to: an
 * operator's value class, whose `value` member its criterion form holds (an unused component is a lint error).
 */
function dropUnreferenced(document: OpenAPIObject, names: string[]): void {
  const schemas = document.components!.schemas!;
  const queue = [...names];
  while (queue.length) {
    const name = queue.shift()!;
    const schema = schemas[name];
    if (!schema) continue;
    // Referred to from anywhere but itself.
    if (JSON.stringify(document, (_key, value: unknown) => (value === schema ? undefined : value)).includes(JSON.stringify(ref(name).$ref))) continue;
    delete schemas[name];
    for (const [, referred] of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) queue.push(referred);
  }
}

/** The component a class (an extension's arguments or value) is in the document under. */
export function modelSchema(document: OpenAPIObject, model: Type): SchemaObject | undefined {
  return document.components?.schemas?.[componentOf(getSchemaPath(model))] as SchemaObject | undefined;
}
