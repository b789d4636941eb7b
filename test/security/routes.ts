import type { INestApplication } from '@nestjs/common';
import request from 'supertest';

export type Method = 'get' | 'post' | 'put' | 'delete';

/** One operation of the Swagger document: `path` as documented, with `{name}` placeholders. */
export interface Route {
  method: Method;
  path: string;
  /** Path parameters other than api_key, in the order they appear in the path. */
  ids: string[];
}

/** Every operation the API documents at /docs-json, so a new route is covered by these specs without editing them. */
export async function routeList(app: INestApplication): Promise<Route[]> {
  const res = await request(app.getHttpServer()).get('/docs-json').expect(200);
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(operations)) {
      const ids = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((name) => name !== 'api_key');
      routes.push({ method: method as Method, path, ids });
    }
  }
  return routes;
}

/** `GET /priv/v1/apps/{api_key}/users/{user_id}`: how specs name a route. */
export function routeName(route: Route): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/** The route's path with each `{name}` replaced by its (URL-encoded) value; throws when a value is missing. */
export function fillPath(route: Route, values: Record<string, string | number>): string {
  return route.path.replace(/\{(\w+)\}/g, (_all, name: string) => {
    if (values[name] === undefined) throw new Error(`no value for {${name}} in ${routeName(route)}`);
    return encodeURIComponent(String(values[name]));
  });
}

/** A supertest request for `method` and `path` on the in-process app. */
export function send(app: INestApplication, method: Method, path: string): request.Test {
  return request(app.getHttpServer())[method](path);
}

/** HTTP Basic credentials. */
export { basic } from '../factories/tenant.factory.js';
