import { readFileSync } from 'node:fs';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

/** One PromQL expression of the dashboard or the alert rules, with where it comes from (for failure messages). */
export interface Expression {
  where: string;
  expr: string;
}

/** An alert rule as Prometheus reads it from ops/prometheus/alerts.yml. */
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Grafana's interval variables stand for a duration: any one gives the same metric names, and a parseable query. */
const GRAFANA_DURATIONS = new Set(['__rate_interval', '__interval', '__range']);

/**
 * The metric names a PromQL expression selects (its vector selectors), parsed by Prometheus's own grammar
 * (@prometheus-io/lezer-promql, the parser of Prometheus's web UI). Grafana's interval variables are replaced by a
 * duration first; any other variable, or a syntax error, throws.
 */
export function metricNames(expr: string): string[] {
  const query = expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    if (!GRAFANA_DURATIONS.has(name)) throw new Error(`unknown Grafana variable ${whole} in ${expr}`);
    return '5m';
  });
  const names = new Set<string>();
  const errors: string[] = [];
  parser.parse(query).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`at ${node.from}: "${query.slice(node.from, node.to + 10)}"`);
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier) names.add(query.slice(identifier.from, identifier.to));
      }
    },
  });
  if (errors.length > 0) throw new Error(`PromQL does not parse: ${query}\n${errors.join('\n')}`);
  return [...names];
}

interface Panel {
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

/** Every query of a Grafana dashboard's panels (rows' own panels included), and of its query variables. */
export function dashboardExpressions(file: string): Expression[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[]; templating?: { list: Array<{ name: string; type: string; query?: unknown }> } };
  const found: Expression[] = [];
  const walk = (panels: Panel[]): void => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) if (target.expr) found.push({ where: `panel "${panel.title}"`, expr: target.expr });
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type === 'query') throw new Error(`variable ${variable.name}: query variables are not checked yet`);
  }
  return found;
}

/** The alert rules of a Prometheus rule file, group by group. */
export function alertRules(file: string): AlertRule[] {
  const document = parseYaml(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: AlertRule[] }> };
  return document.groups.flatMap((group) => group.rules);
}

/**
 * The series names a Prometheus text exposition serves: its samples' names, and for each histogram its `_bucket`,
 * `_sum` and `_count` (for a summary, `_sum` and `_count`), whether or not they have samples yet.
 */
export function servedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)$/.exec(line);
    if (type) {
      const [, name, kind] = type;
      if (kind === 'histogram') ['_bucket', '_sum', '_count'].forEach((suffix) => names.add(name + suffix));
      else if (kind === 'summary') [name, `${name}_sum`, `${name}_count`].forEach((n) => names.add(n));
      else names.add(name);
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

/**
 * The anchors GitHub gives a Markdown file's headings (lower case, punctuation dropped, spaces as hyphens), to check
 * that a link to `docs/x.md#anchor` lands on a heading.
 */
export function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(heading[1].trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
  }
  return anchors;
}
