import type { Type } from '@nestjs/common';
import { getSchemaPath, type OpenAPIObject, type SchemaObject } from '@nestjs/swagger';
import type { EngineExtensions } from '../../engine/index.js';
import type { ExtensionView, ExtensionsView } from './dto/extensions.dto.js';
import type { ExtensionDefinitions } from './extension-registry.js';

/** A schema less its description (the listing answers that beside it). */
function bare(schema: unknown): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...(schema as object | undefined) };
  delete rest.description;
  return rest;
}

/** The component a class is in the document under. */
function component(document: OpenAPIObject, model: Type): SchemaObject | undefined {
  return document.components?.schemas?.[getSchemaPath(model).split('/').pop()!] as SchemaObject | undefined;
}

/**
 * The reward kinds and criteria operators the application knows, built-ins and extensions alike, in the order they are
 * registered, each with the JSON schema of its arguments (or its value) as the served document holds it: what a UI
 * builds its forms from, as Vendure's API serves its configurable operations' definitions.
 */
export function extensionListing(document: OpenAPIObject, engine: EngineExtensions, extensions: ExtensionDefinitions): ExtensionsView {
  const members = (name: string) => (document.components?.schemas?.[name] as SchemaObject | undefined)?.properties ?? {};
  const outcome = members('OutcomeInput');
  const criterionValue = bare(members('Criterion').value);
  const model = (list: ExtensionDefinitions['rewardKinds'], name: string) => list.find((d) => d.name === name)?.model;
  const entry = (d: { name: string; source: string; description: string }, schema: Record<string, unknown>): ExtensionView => ({ name: d.name, source: d.source, description: d.description, schema });
  return {
    reward_kinds: [...engine.rewards.values()].map((r) => {
      if (r.source === 'core') return entry(r, bare(outcome[r.name]));
      const args = model(extensions.rewardKinds, r.name);
      return entry(r, args ? { $ref: getSchemaPath(args) } : { type: 'object' });
    }),
    criteria_operators: [...engine.operators.values()].map((o) => {
      if (o.source === 'core') return entry(o, criterionValue);
      const value = model(extensions.criteriaOperators, o.name);
      return entry(o, value ? bare(component(document, value)?.properties?.value) : {});
    }),
  };
}
