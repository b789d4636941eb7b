import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import type { EngineExtensions } from '../../engine/index.js';
import type { ExtensionView, ExtensionsView } from './dto/extensions.dto.js';
import { modelSchema, NO_ARGS } from './extension-document.js';
import type { Domain, ExtensionDefinitions } from './extension-registry.js';

/** A schema less its description (the listing answers that beside it). */
function bare(schema: unknown): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...(schema as object | undefined) };
  delete rest.description;
  return rest;
}

/**
 * The domain actions, reward kinds and criteria operators the application knows, built-ins and extensions alike, in the order they are
 * registered, each with the JSON schema of its arguments (or its value) as the served document holds it: what a UI
 * builds its forms from, as Vendure's API serves its configurable operations' definitions.
 */
export function extensionListing(document: OpenAPIObject, engine: EngineExtensions, extensions: ExtensionDefinitions, domains: ReadonlyMap<string, Domain>): ExtensionsView {
  const members = (name: string) => (document.components?.schemas?.[name] as SchemaObject | undefined)?.properties ?? {};
  const outcome = members('OutcomeInput');
  const criterionValue = bare(members('Criterion').value);
  const entry = (d: { name: string; source: string; description: string }, schema: Record<string, unknown>): ExtensionView => ({ name: d.name, source: d.source, description: d.description, schema });
  return {
    domain_actions: [...domains.values()].map((d) => entry(d, d.model ? bare(modelSchema(document, d.model)) : bare(NO_ARGS))),
    // Every reward kind is a member of an outcome in the document (extendDocument adds the extensions').
    reward_kinds: [...engine.rewards.values()].map((r) => entry(r, bare(outcome[r.name]))),
    criteria_operators: [...engine.operators.values()].map((o) => {
      if (o.source === 'core') return entry(o, criterionValue);
      const value = extensions.criteriaOperators.find((d) => d.name === o.name)?.model;
      return entry(o, value ? bare(modelSchema(document, value)?.properties?.value) : {});
    }),
    event_enrichers: extensions.eventEnrichers.map(({ name, source, description }) => ({ name, source, description })),
  };
}
