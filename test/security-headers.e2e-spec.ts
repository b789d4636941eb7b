import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';

/** The headers helmet sets (contract §18), as a browser reads them. */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  'strict-transport-security': expect.stringMatching(/^max-age=\d{7,}; includeSubDomains$/),
  'content-security-policy': expect.stringContaining("default-src 'self'"),
};

/** The origin supertest's requests come from, as the page's `'self'`. */
const ORIGIN = 'http://127.0.0.1';

type Csp = Map<string, string[]>;

function parseCsp(header: string): Csp {
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name.toLowerCase(), sources]),
  );
}

/** The sources of the first of `names` the policy has (CSP's fallback order ends with default-src); none: anything. */
function sources(csp: Csp, ...names: string[]): string[] {
  for (const name of [...names, 'default-src']) if (csp.has(name)) return csp.get(name)!;
  return ['*'];
}

/** Whether a source list allows a URL, for a page of ORIGIN: 'self', scheme sources (`https:`), origins, `*`. */
function allowsUrl(list: string[], url: URL): boolean {
  return list.some((source) => {
    if (source === "'self'") return url.origin === ORIGIN;
    if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) return url.protocol === source.toLowerCase();
    if (source === '*') return !['data:', 'blob:', 'filesystem:'].includes(url.protocol);
    return /^https?:\/\//.test(source) && url.origin === new URL(source).origin;
  });
}

const unsafeInline = (list: string[]) => list.includes("'unsafe-inline'");

interface Load {
  what: string;
  allowed: boolean;
}

/**
 * What a browser would load or run for an HTML page, each with whether the page's CSP allows it: external scripts and
 * stylesheets, icons, inline scripts (data blocks such as `type="application/json"` are not run), `<style>` elements,
 * `style` and `on*` attributes.
 */
function pageLoads(html: string, pageUrl: URL, csp: Csp): Load[] {
  const base = new URL(/<base href="([^"]+)"/.exec(html)?.[1] ?? '', pageUrl);
  const loads: Load[] = [];
  for (const [tag, attrs] of html.matchAll(/<script\b([^>]*)>/g)) {
    const src = /\bsrc="([^"]+)"/.exec(attrs)?.[1];
    const type = /\btype="([^"]+)"/.exec(attrs)?.[1];
    if (src) loads.push({ what: `script ${new URL(src, base)}`, allowed: allowsUrl(sources(csp, 'script-src-elem', 'script-src'), new URL(src, base)) });
    else if (!type || /javascript|module/.test(type)) loads.push({ what: `inline ${tag}`, allowed: unsafeInline(sources(csp, 'script-src-elem', 'script-src')) });
  }
  for (const [, attrs] of html.matchAll(/<link\b([^>]*)>/g)) {
    const href = new URL(/\bhref="([^"]+)"/.exec(attrs)![1], base);
    const rel = /\brel="([^"]+)"/.exec(attrs)?.[1] ?? '';
    if (rel === 'stylesheet') loads.push({ what: `stylesheet ${href}`, allowed: allowsUrl(sources(csp, 'style-src-elem', 'style-src'), href) });
    else if (/icon/.test(rel)) loads.push({ what: `icon ${href}`, allowed: allowsUrl(sources(csp, 'img-src'), href) });
  }
  if (/<style\b/.test(html)) loads.push({ what: '<style> element', allowed: unsafeInline(sources(csp, 'style-src-elem', 'style-src')) });
  if (/<[^>]+\sstyle="/.test(html)) loads.push({ what: 'style attribute', allowed: unsafeInline(sources(csp, 'style-src-attr', 'style-src')) });
  if (/<[^>]+\son[a-z]+=/i.test(html)) loads.push({ what: 'event handler attribute', allowed: unsafeInline(sources(csp, 'script-src-attr', 'script-src')) });
  return loads;
}

/** The `url(...)` of a stylesheet, each with whether the CSP allows it (fonts by font-src, the rest by img-src). */
function stylesheetLoads(css: string, cssUrl: URL, csp: Csp): Load[] {
  const refs = css.matchAll(/url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)\s]+))\s*\)/g);
  return [...refs].map(([, double, single, bare]) => {
    const ref = double ?? single ?? bare;
    const url = new URL(ref, cssUrl);
    const font = /\.(woff2?|ttf|otf|eot)$/.test(url.pathname);
    return { what: `${font ? 'font' : 'image'} ${ref.slice(0, 40)} in ${cssUrl.pathname}`, allowed: allowsUrl(sources(csp, font ? 'font-src' : 'img-src'), url) };
  });
}

describe('security headers (helmet)', () => {
  let app: INestApplication;
  const get = (path: string) => request(app.getHttpServer()).get(path);
  const admin = (path: string) => get(path).auth('admin', TEST_ADMIN_TOKEN);

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('are on JSON answers, successes and errors alike, and x-powered-by is not', async () => {
    for (const res of [await get('/health/live'), await get('/priv/v1/apps/no-such-key/users/x'), await get('/no/such/route')]) {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers).toEqual(expect.objectContaining(SECURITY_HEADERS));
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('leave out upgrade-insecure-requests, which would send a plain HTTP page\'s own scripts over HTTPS in some browsers', async () => {
    const csp = parseCsp((await get('/health/live')).headers['content-security-policy']);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'self'"]);
  });

  /**
   * A page "keeps working" when its CSP allows everything it loads and runs, and what it loads from us is served, with
   * the type that `nosniff` requires of a script or a stylesheet.
   */
  async function expectPageWorks(page: request.Response, pageUrl: URL, authorize: (path: string) => request.Test): Promise<Load[]> {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers).toEqual(expect.objectContaining(SECURITY_HEADERS));
    const csp = parseCsp(page.headers['content-security-policy']);
    const loads = pageLoads(page.text, pageUrl, csp);
    for (const load of loads.filter((l) => /^(script|stylesheet) /.test(l.what))) {
      const url = new URL(load.what.split(' ')[1]);
      if (url.origin !== ORIGIN) continue;
      const res = await authorize(url.pathname);
      expect({ what: load.what, status: res.status }).toEqual({ what: load.what, status: 200 });
      expect(res.headers['content-type']).toMatch(load.what.startsWith('script') ? /^(application|text)\/javascript/ : /^text\/css/);
      if (load.what.startsWith('stylesheet')) loads.push(...stylesheetLoads(res.text, url, csp));
    }
    // Swagger UI's "Try it out" and the dashboard's API calls: fetches to the same origin.
    loads.push({ what: 'fetch of the API', allowed: allowsUrl(sources(csp, 'connect-src'), new URL('/priv/v1/apps/k/users', ORIGIN)) });
    expect(loads.filter((l) => !l.allowed).map((l) => l.what)).toEqual([]);
    return loads;
  }

  it('let Swagger UI at /docs load its scripts, stylesheet, inline styles and images', async () => {
    const loads = await expectPageWorks(await get('/docs'), new URL('/docs', ORIGIN), get);
    expect(loads.map((l) => l.what)).toEqual(
      expect.arrayContaining([
        `script ${ORIGIN}/docs/swagger-ui-bundle.js`,
        `script ${ORIGIN}/docs/swagger-ui-init.js`,
        `stylesheet ${ORIGIN}/docs/swagger-ui.css`,
        '<style> element',
        expect.stringMatching(/^image data:image\/svg\+xml/),
      ]),
    );
  });

  it('let the queue dashboard at /admin/queues load its scripts, its stylesheets (Google Fonts too) and inline styles', async () => {
    const loads = await expectPageWorks(await admin('/admin/queues/'), new URL('/admin/queues/', ORIGIN), admin);
    expect(loads.map((l) => l.what)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^script ${ORIGIN}/admin/queues/static/js/main\\.`)),
        expect.stringMatching(/^stylesheet https:\/\/fonts\.googleapis\.com\//),
        'style attribute',
      ]),
    );
  });
});
