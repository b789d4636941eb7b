/**
 * Draws a campaign's analytics (the JSON answer of GET .../management/campaigns/:id/analytics) as an SVG with
 * Vega-Lite: events, participants and achievements per period (analytics.vl.json).
 * Run: node dist/examples/analytics-chart/chart.js analytics.json > analytics.svg (the answer from a file, or - for stdin)
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** The spec, from the example's folder (the source's, next to the built script's parent). */
export function chartSpec(): TopLevelSpec {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'analytics.vl.json'), join(here, '../../../examples/analytics-chart/analytics.vl.json')];
  for (const file of candidates) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as TopLevelSpec;
    } catch {
      // The next place.
    }
  }
  throw new Error('analytics.vl.json not found next to the script');
}

/** The SVG of an analytics answer (`{"status":"ok","analytics":{...}}`): the spec with the answer's series as its data. */
export async function drawAnalytics(answer: { analytics: { series: object[] } }): Promise<string> {
  const { spec } = compile({ ...chartSpec(), data: { values: answer.analytics.series } } as TopLevelSpec);
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  return view.toSVG();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const source = process.argv[2];
  if (!source) {
    process.stderr.write('usage: node dist/examples/analytics-chart/chart.js <analytics.json | -> > chart.svg\n');
    process.exit(2);
  }
  const answer = JSON.parse(readFileSync(source === '-' ? 0 : source, 'utf8')) as { analytics: { series: object[] } };
  process.stdout.write(await drawAnalytics(answer));
}
