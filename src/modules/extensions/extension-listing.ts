import { Injectable } from '@nestjs/common';
import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import type { EngineExtensions } from '../../engine/index.js';
import { ExtensionRegistry, type Domain, type ExtensionDefinitions } from '../registry/index.js';
import type { ExtensionView, ExtensionsView } from './dto/extensions.dto.js';
import { extendDocument, modelSchema, NO_ARGS, outcomeForm } from './extension-document.js';

/**
 * The extensions in the document the application serves, and the listing of everything registered with their schemas
 * as that document holds them.
 */
@Injectable()
export class ExtensionListing {
  private listed: ExtensionsView | undefined;

  constructor(private readonly registry: ExtensionRegistry) {}

  /** The classes of the extensions' arguments and values: models the OpenAPI document must hold. */
  models(): ReturnType<ExtensionRegistry['models']> {
    return this.registry.models();
  }

  /** Puts the extensions into the document and keeps the listing (configureApp calls it once it has built the document). */
  publish(document: OpenAPIObject): OpenAPIObject {
    extendDocument(document, this.registry.definitions(), [...this.registry.domains().keys()]);
    this.listed = extensionListing(document, this.registry.engine(), this.registry.definitions(), this.registry.domains());
    return document;
  }

  /** The reward kinds and criteria operators, each with the schema of its arguments (publish builds it). */
  listing(): ExtensionsView {
    if (!this.listed) throw new Error('the extensions are listed once the OpenAPI document is built (ExtensionListing.publish)');
    return this.listed;
  }
}

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
  const component = (name: string | undefined) => (name === undefined ? undefined : (document.components?.schemas?.[name] as SchemaObject | undefined));
  // Each operator's criterion form (extendDocument maps every op, the built-ins many to one) and each kind's outcome form.
  const criterionForms = (component('Criterion')?.discriminator?.mapping ?? {}) as Record<string, string | undefined>;
  const criterionValue = (op: string) => component(criterionForms[op]?.split('/').pop())?.properties?.value;
  const outcomeMember = (kind: string) => component(outcomeForm('OutcomeInput', kind))?.properties?.[kind];
  const entry = (d: { name: string; source: string; description: string }, schema: Record<string, unknown>): ExtensionView => ({ name: d.name, source: d.source, description: d.description, schema });
  return {
    domain_actions: [...domains.values()].map((d) => entry(d, d.model ? bare(modelSchema(document, d.model)) : bare(NO_ARGS))),
    reward_kinds: [...engine.rewards.values()].map((r) => entry(r, bare(outcomeMember(r.name)))),
    // A built-in's schema is its form's value (in and nin an array, exists a boolean); an extension's, its Criterion_<op>'s.
    criteria_operators: [...engine.operators.values()].map((o) => entry(o, bare(criterionValue(o.name)))),
    event_enrichers: extensions.eventEnrichers.map(({ name, source, description }) => ({ name, source, description })),
  };
}
