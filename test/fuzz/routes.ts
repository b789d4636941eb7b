/**
 * The routes to fuzz, read from the app's own OpenAPI document (GET /docs-json): a route added to the app is fuzzed
 * without touching the fuzzer. Each route carries a valid example body built from the documented examples.
 */

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  enum?: unknown[];
  example?: unknown;
}

interface Operation {
  parameters?: Array<{ name: string; in: string; schema?: Schema & { minimum?: number; maximum?: number; default?: unknown } }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The OpenAPI path, such as /priv/v1/apps/{api_key}/users/{user_id}. */
  template: string;
  /** Path parameter names, in order. */
  params: string[];
  /** Documented query parameters, each with values its schema allows (enum values, bounds, default, example). */
  query: Record<string, string[]>;
  /** A body built from the documented examples (undefined: the route takes no body). */
  example?: Record<string, unknown>;
  /** The top-level members the body may have (empty when it takes no body). */
  bodyMembers: string[];
  kind: 'priv' | 'admin' | 'public';
}

function exampleOf(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 10) return undefined;
  if (schema.$ref) return exampleOf(doc, doc.components.schemas[schema.$ref.split('/').pop()!], depth + 1);
  if (schema.example !== undefined) return structuredClone(schema.example);
  if (schema.allOf?.length) return exampleOf(doc, schema.allOf[0], depth + 1);
  if (schema.type === 'array') {
    const item = exampleOf(doc, schema.items, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const value = exampleOf(doc, property, depth + 1);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  return schema.enum?.[0];
}

/** Values a documented query parameter accepts, as the schema says (may be empty: the fuzzer then uses its own). */
function allowedValues(schema: Schema & { minimum?: number; maximum?: number; default?: unknown }): string[] {
  const values = [...(schema.enum ?? schema.items?.enum ?? []), schema.minimum, schema.maximum, schema.default, schema.example];
  return values.filter((v) => v !== undefined && v !== null && typeof v !== 'object').map(String);
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  return schema.$ref ? resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()!]) : schema;
}

export function routesOf(doc: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      routes.push({
        method: method.toUpperCase() as Route['method'],
        template,
        params,
        query: Object.fromEntries((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, allowedValues(p.schema ?? {})])),
        example: bodySchema ? (exampleOf(doc, bodySchema) as Record<string, unknown>) : undefined,
        bodyMembers: bodySchema ? Object.keys(resolve(doc, bodySchema).properties ?? {}) : [],
        kind: template.startsWith('/priv/') ? 'priv' : template.startsWith('/admin/') ? 'admin' : 'public',
      });
    }
  }
  return routes;
}

/** Fills a template with already-encoded segments. */
export function fill(route: Route, segments: Record<string, string>): string {
  return route.template.replace(/\{(\w+)\}/g, (_, name: string) => segments[name]);
}
